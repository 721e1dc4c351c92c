// The authorization server: oidc-provider (a certified, widely used implementation; the
// reasons are in docs/decisions.md) configured for what MCP's authorization rules ask and
// nothing else: the authorization code flow with PKCE S256 only, resource indicators
// (RFC 8707: a token's audience is one of Gatehouse's protected resources), Client ID
// Metadata Documents and dynamic registration (each behind its setting), short-lived opaque
// access tokens and refresh tokens rotated at every use, revocation (RFC 7009) and metadata
// (RFC 8414) that lists only that (server-metadata.ts). Codes, tokens, grants, sessions and
// interactions are kept by model-store.ts in the Gatehouse database; the cookie keys and the
// signing key are shared through `meta`.
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import type { Configuration, KoaContextWithOIDC, ClientMetadata } from 'oidc-provider'
import type Provider from 'oidc-provider'
import type { Settings } from '../kernel/settings.js'
import type { Database } from '../store/database.js'
import { siteValue } from '../store/meta.js'
import { modelAdapterClass } from './model-store.js'
import { metadataFetch } from './metadata-fetch.js'
import { errorPage } from './error-page.js'
import { RESPONSE_MODES, serverMetadata } from './server-metadata.js'

export interface AuthorizationServerOptions {
  readonly settings: Settings
  readonly database: Database
  /** Protected resources (absolute URLs) tokens may be issued for; the first is the default. */
  readonly resources: readonly string[]
  /** Scopes any grant may carry right now (the catalogue's enabled scopes under the setting's cap). */
  readonly offeredScopes: () => readonly string[]
  /** Where the authorization endpoint sends the browser for login and consent (a path of the panel). */
  readonly consentPath: (uid: string) => string
  /** Whether a client may be used (an operator could block one); metadata documents are checked by the fetch rules first. */
  readonly allowClient?: (clientId: string) => Promise<boolean>
}

const DAY = 86_400
/** How long a client told the database is away waits before it asks again. */
export const RETRY_AFTER_SECONDS = 5
export const UNAVAILABLE_DESCRIPTION = 'The database cannot be reached or did not answer in time; retry shortly'

export async function createAuthorizationServer(opts: AuthorizationServerOptions): Promise<Provider> {
  const { settings, database } = opts
  const { default: ProviderClass, errors } = await import('oidc-provider')
  // Every process signs and checks cookies with the same keys, so a browser may be answered by any of them.
  const cookieKey = await siteValue(database.db, 'oauth_cookie_key', () => randomBytes(32).toString('base64url'))
  // No ID tokens are issued (no `openid` scope is offered), but the library wants a signing key; one per site.
  const jwk = JSON.parse(await siteValue(database.db, 'oauth_signing_jwk', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    return JSON.stringify({ ...privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'ES256', kid: randomBytes(8).toString('hex') })
  })) as Record<string, string>

  const resourceServer = (indicator: string) => {
    if (!opts.resources.includes(indicator)) return undefined
    return { scope: opts.offeredScopes().join(' '), audience: indicator, accessTokenTTL: settings.oauthAccessTokenTtlSeconds, accessTokenFormat: 'opaque' as const }
  }

  // A database that cannot be reached (or, on SQLite, stays locked past the busy timeout) is
  // answered 503 `temporarily_unavailable` (RFC 6749 §4.1.2.1 names it for redirects too), so a
  // client retries instead of giving up on a `server_error`. The database's error stays as the
  // cause: the machine API and MCP, which read access tokens through the same adapter, still
  // see an outage (api/error-handler.ts).
  const unavailable = (err: unknown): unknown => {
    if (!database.adapter.isUnavailable(err)) return err
    const out = new errors.TemporarilyUnavailable(UNAVAILABLE_DESCRIPTION, { cause: err, detail: 'database unavailable' })
    return Object.assign(out, { status: 503, statusCode: 503, expose: true })
  }

  const configuration: Configuration = {
    adapter: modelAdapterClass(database, unavailable) as unknown as Configuration['adapter'],
    clients: [],
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    jwks: { keys: [jwk] },
    cookies: { keys: [cookieKey] },
    // No `openid`: this is an OAuth authorization server for Gatehouse's resources, not a sign-in provider for people.
    scopes: [],
    claims: {},
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256' } as unknown as ClientMetadata,
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    // Every answer goes back in the query: fragment answers are for browser-only clients, and
    // form_post pages run a script and post to the client, which the authorization server's
    // CSP forbids. An authorization request naming another mode is refused (and told so in the
    // query), and so is a client that registers or publishes one.
    extraParams: {
      response_mode: (ctx: KoaContextWithOIDC, value: unknown) => {
        if (value === undefined || RESPONSE_MODES.includes(String(value))) return
        ;(ctx.oidc.params as Record<string, unknown>).response_mode = undefined
        throw new errors.UnsupportedResponseMode()
      },
    },
    extraClientMetadata: {
      properties: ['response_modes'],
      // Called once per client for each property above, with the client's whole metadata.
      validator: (_ctx, _key, value, metadata) => {
        if (Array.isArray(value) && value.some((m) => !RESPONSE_MODES.includes(String(m)))) {
          throw new errors.InvalidClientMetadata(`response_modes: only ${RESPONSE_MODES.join(', ')} is supported`)
        }
        // OAuth 2.1 §2.3.1 and MCP's authorization: a plain-http redirect only to the client's own
        // machine (the library lets a web client name any http URI, where a code could be read).
        const plain = ((metadata as { redirect_uris?: unknown }).redirect_uris as unknown[] | undefined ?? []).find((u) => !allowedRedirect(String(u)))
        if (plain !== undefined) {
          throw Object.assign(new errors.InvalidRedirectUri(), { error_description: `redirect_uris: ${String(plain)} uses http on a host other than localhost, 127.0.0.1 or [::1]; use https` })
        }
      },
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      introspection: { enabled: false },
      // Not offered: the protected resources take bearer tokens only (a DPoP-bound token would
      // need its proof checked there), and MCP clients send plain authorization requests.
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      // RFC 7009 §2.1: a client revokes only tokens issued to it (another's is left alone and
      // answered 200, as an unknown token is).
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      // No registration access token: registration management (RFC 7592) is off, so it would
      // be a row per registration, kept for ever, that nothing can use.
      registration: { enabled: settings.oauthDynamicRegistration, initialAccessToken: false, issueRegistrationAccessToken: false },
      resourceIndicators: {
        enabled: true,
        // MCP clients send `resource`; one that does not gets the MCP endpoint.
        defaultResource: async (_ctx, _client, oneOf) => oneOf ?? opts.resources[0],
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          const info = resourceServer(indicator)
          if (!info) throw new errors.InvalidTarget()
          return info
        },
      },
      // Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, as MCP 2025-11-25 prefers).
      ...({
        clientIdMetadataDocument: {
          enabled: settings.oauthClientMetadataDocuments,
          ack: 'draft-02',
          allowFetch: async (_ctx: unknown, clientId: string) => (opts.allowClient ? opts.allowClient(clientId).catch((err: unknown) => { throw unavailable(err) }) : true),
          cacheDuration: { min: 30, max: 3600 },
        },
      } as object),
    },
    fetch: metadataFetch({ allowPrivate: settings.oauthMetadataAllowPrivate, caFile: settings.oauthMetadataCaFile }) as Configuration['fetch'],
    ...({ fetchResponseBodyLimits: { 'client_id metadata document': 16 * 1024 } } as object),
    ttl: {
      AccessToken: settings.oauthAccessTokenTtlSeconds,
      AuthorizationCode: 60,
      RefreshToken: settings.oauthRefreshTokenTtlDays * DAY,
      Grant: settings.oauthRefreshTokenTtlDays * DAY,
      Interaction: 600,
      Session: DAY,
    },
    // A refresh token for every client allowed the refresh_token grant (MCP clients do not ask for offline_access),
    // a new one at every use (the old one is consumed; using it again revokes the grant), and tokens that outlive
    // the browser session: they are bound to the grant, which the operator's credential governs.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    expiresWithSession: async () => false,
    interactions: { url: async (_ctx: KoaContextWithOIDC, interaction) => opts.consentPath(interaction.uid) },
    renderError: async (ctx, out) => {
      ctx.type = 'html'
      ctx.body = errorPage(out as unknown as Record<string, string>)
    },
  }
  const provider = new ProviderClass(settings.oauthIssuer, configuration)
  // The metadata document lists what Gatehouse supports, not the library's OpenID defaults.
  provider.use(async (ctx, next) => {
    await next()
    if (ctx.status === 503) ctx.set('Retry-After', String(RETRY_AFTER_SECONDS))
    if (ctx.oidc?.route === 'discovery' && ctx.status === 200) {
      ctx.body = serverMetadata(ctx.body as Record<string, unknown>, { scopes: opts.offeredScopes(), clientMetadataDocuments: settings.oauthClientMetadataDocuments })
    }
  })
  // Behind a proxy that terminates TLS, the issuer (settings) says https; the library trusts X-Forwarded-* only when told.
  provider.proxy = new URL(settings.oauthIssuer).protocol === 'https:'
  return provider
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/** A redirect URI other than plain http, or plain http to the loopback interface. */
function allowedRedirect(uri: string): boolean {
  const u = URL.parse(uri)
  return u === null || u.protocol !== 'http:' || LOOPBACK_HOSTS.has(u.hostname)
}
