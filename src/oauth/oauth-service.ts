// Sign-in for agents (DESIGN §15, docs/mcp.md): the authorization server (built on first use,
// like the MCP SDK: most sites never need it), the consent an operator gives in the control
// panel, which becomes a managed credential linked to the client, and the check of an OAuth
// access token presented to a protected resource. A token admits its bearer as the grant's
// credential, read fresh on every request, with at most the scopes the token was issued.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type Provider from 'oidc-provider'
import type { Logger } from 'pino'
import type { Settings } from '../kernel/settings.js'
import { SettingsError } from '../kernel/settings.js'
import type { Database, Db } from '../store/database.js'
import type { Caller } from '../kernel/caller.js'
import { ApiError, invalid } from '../kernel/errors.js'
import type { CreateCredentialInput, CredentialRecord, CredentialService } from '../auth/credentials.js'
import { effectiveScopes, type ScopeInfo } from '../auth/scopes.js'
import { createAuthorizationServer } from './authorization-server.js'
import { grantLink, linkGrant, listGrantLinks, type GrantLink } from './oauth-grants.js'
import { recordClient, type SeenClient } from './oauth-clients.js'
import { keepRegisteredClient, revokeGrants } from './model-store.js'
import { auditProviderEvents, type OAuthAuditHook, type OAuthEvent } from './oauth-audit.js'
import { StartedOnce } from '../kernel/started-once.js'

export interface OAuthServiceOptions {
  readonly settings: Settings
  readonly database: Database
  readonly credentials: CredentialService
  /** Scopes the app offers now (enabled ones and loaded providers'), before the setting's cap. */
  readonly scopes: () => readonly ScopeInfo[]
  /** Every scope the catalogue knows (to check the cap setting). */
  readonly isKnownScope: (scope: string) => boolean
  /** Protected resources as absolute URLs; the first (the MCP endpoint) is the default. */
  readonly resources: readonly string[]
  /** The control panel's consent page for an interaction. */
  readonly consentPath: (uid: string) => string
  readonly audit?: OAuthAuditHook
  readonly logger: Logger
}

/** What the consent page shows and decides about. */
export interface ConsentRequest {
  readonly uid: string
  readonly client: SeenClient & { readonly redirectUri: string; readonly logoUri: string | null }
  /** The protected resource the tokens will be for. */
  readonly resource: string
  /** Requested scopes an operator may grant, in catalogue order. */
  readonly grantable: readonly ScopeInfo[]
  /** Requested scopes no OAuth grant may carry (unknown, switched off, or above the cap). */
  readonly unavailable: readonly string[]
  /** The credential an earlier consent created for this client, when the client comes back for more. */
  readonly previous: CredentialRecord | null
}

/** The operator's decision: a subset of the grantable scopes and the credential's limits. */
export type ConsentDecision = Pick<CreateCredentialInput, 'scopes' | 'boundaries' | 'ipAllowlist' | 'expiresAt'>

export class OAuthService {
  /** Started at the first request, which reads its keys (on a fresh site, writes them). */
  private readonly server = new StartedOnce<Provider>(() => createAuthorizationServer({
    settings: this.opts.settings,
    database: this.opts.database,
    resources: this.opts.resources,
    offeredScopes: () => this.offeredScopes().map((x) => x.scope),
    consentPath: this.opts.consentPath,
  }).then((p) => {
    auditProviderEvents(p, (event) => this.record(event), this.opts.logger)
    return p
  }))
  private callback: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined

  constructor(private readonly opts: OAuthServiceOptions) {
    const cap = opts.settings.oauthMaxScopes ?? []
    const unknown = cap.filter((x) => !opts.isKnownScope(x))
    if (unknown.length > 0) throw new SettingsError('PLUGIN_GATEHOUSE_OAUTH_MAX_SCOPES', `unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.map((x) => `"${x}"`).join(', ')}`)
  }

  get enabled(): boolean {
    return this.opts.settings.oauthEnabled
  }

  get resources(): readonly string[] {
    return this.opts.resources
  }

  /** Scopes an OAuth grant may carry now: the offered ones under PLUGIN_GATEHOUSE_OAUTH_MAX_SCOPES. */
  offeredScopes(): ScopeInfo[] {
    const cap = this.opts.settings.oauthMaxScopes
    return this.opts.scopes().filter((x) => !x.deprecatedFor && (cap === undefined || cap.includes(x.scope)))
  }

  provider(): Promise<Provider> {
    return this.server.get()
  }

  /** Serves one request of the authorization server; `path` is the part after the issuer's path. */
  async handle(req: IncomingMessage & { originalUrl?: string }, res: ServerResponse, path: string): Promise<void> {
    const provider = await this.provider()
    this.callback ??= provider.callback() as unknown as (req: IncomingMessage, res: ServerResponse) => Promise<void>
    // The library builds its endpoints' URLs from the mount (originalUrl minus url) and the
    // request's host: both are made the issuer's, so every URL it publishes is under the
    // issuer whatever path or host the request came by (the RFC 8414 root form, a proxy).
    const issuer = new URL(this.opts.settings.oauthIssuer)
    req.originalUrl = issuer.pathname + path
    req.url = path
    req.headers.host = issuer.host
    await this.callback(req, res)
  }

  /**
   * The caller an OAuth access token stands for on `resource`, or undefined when the value is
   * no access token of this server. A token issued for another resource is refused (RFC 8707).
   */
  async authenticate(value: string, resource: string, ip: string): Promise<Caller | undefined> {
    const provider = await this.provider()
    const token = await provider.AccessToken.find(value)
    if (!token) return undefined
    if (token.aud !== resource && !(Array.isArray(token.aud) && token.aud.includes(resource))) {
      throw new ApiError('UNAUTHORIZED', 'This access token was issued for another resource', undefined, { 'WWW-Authenticate': 'Bearer error="invalid_token"' })
    }
    const link = token.grantId ? await grantLink(this.opts.database.db, token.grantId) : undefined
    if (!link) return undefined
    const caller = await this.opts.credentials.authenticateManaged(link.credentialId, ip)
    // What the operator granted (the credential now: narrowed or not) and what the token carries, whichever is less.
    const carried = new Set(String(token.scope ?? '').split(' ').filter(Boolean))
    const granted = caller.grantedScopes.filter((x) => carried.has(x))
    return { ...caller, grantedScopes: granted, scopes: effectiveScopes(granted) }
  }

  /** The pending authorization behind the consent page (its interaction cookie names it). */
  async consentRequest(req: IncomingMessage, res: ServerResponse): Promise<ConsentRequest> {
    const provider = await this.provider()
    const details = await provider.interactionDetails(req, res)
    const params = details.params as Record<string, unknown>
    const clientId = String(params.client_id)
    const client = await provider.Client.find(clientId)
    if (!client) throw new ApiError('NOT_FOUND', 'The application of this request is no longer known; start again from the application')
    const metadata = client.metadata() as Record<string, unknown>
    const kind = (client as unknown as { clientIdMetadataDocument?: boolean }).clientIdMetadataDocument ? 'metadata_document' : 'registered'
    const seen = await recordClient(this.opts.database.db, clientId, kind, metadata)
    const requested = String(params.scope ?? '').split(' ').filter(Boolean)
    const offered = this.offeredScopes()
    const grantable = offered.filter((x) => requested.includes(x.scope))
    const logo = typeof metadata.logo_uri === 'string' && sameOrigin(metadata.logo_uri, this.opts.settings.baseUrl) ? metadata.logo_uri : null
    const previous = details.grantId ? await this.previousCredential(details.grantId) : null
    return {
      uid: details.uid,
      client: { ...seen, redirectUri: String(params.redirect_uri), logoUri: logo },
      resource: typeof params.resource === 'string' ? params.resource : this.opts.resources[0],
      grantable,
      unavailable: requested.filter((x) => !grantable.some((g) => g.scope === x)),
      previous,
    }
  }

  /**
   * The operator grants: a managed credential with the chosen scopes and limits (the one an
   * earlier consent made for this client, updated, when the client comes back for more), a
   * grant for exactly those scopes linked to it, and the browser sent on to the client.
   * Answers where to redirect.
   */
  async grant(req: IncomingMessage, res: ServerResponse, decision: ConsentDecision, admin: string): Promise<string> {
    const provider = await this.provider()
    const request = await this.consentRequest(req, res)
    const allowed = new Set(request.grantable.map((x) => x.scope))
    const outside = decision.scopes.filter((x) => !allowed.has(x))
    if (outside.length > 0) throw invalid('scopes', `not requested by this application or not grantable: ${outside.join(', ')}`)
    if (decision.scopes.length === 0) throw invalid('scopes', 'grant at least one scope, or refuse the request')
    const db = this.opts.database.db
    // A registration is kept from the consent on; one that ran out during the consent makes no credential.
    if (request.client.kind === 'registered' && !(await keepRegisteredClient(db, request.client.clientId))) {
      throw new ApiError('NOT_FOUND', 'The application of this request is no longer known; start again from the application')
    }
    const by = { type: 'admin' as const, id: admin }
    const input = { scopes: [...decision.scopes], boundaries: decision.boundaries ?? null, ipAllowlist: decision.ipAllowlist ?? [], expiresAt: decision.expiresAt ?? null }
    const previous = request.previous && request.previous.status !== 'revoked' ? request.previous : null
    const credential = previous
      ? await this.opts.credentials.update(previous.id, input, by)
      : (await this.opts.credentials.create({ label: labelFor(request.client), ...input }, by)).credential
    const grant = new provider.Grant({ accountId: admin, clientId: request.client.clientId })
    grant.addResourceScope(request.resource, decision.scopes.join(' '))
    const refused = request.grantable.map((x) => x.scope).filter((x) => !decision.scopes.includes(x))
    if (refused.length > 0) grant.rejectResourceScope(request.resource, refused.join(' '))
    const grantId = await grant.save()
    await linkGrant(db, { grantId, credentialId: credential.id, clientId: request.client.clientId, grantedBy: admin })
    // The grant this one replaces: its tokens end now (the client is being given new ones).
    const replaced = (await provider.interactionDetails(req, res)).grantId
    if (replaced && replaced !== grantId) await revokeGrants(db, [replaced])
    await this.record({
      action: 'grant', outcome: 'success', actor: by, entity: { type: 'credential', id: credential.id },
      summary: `Granted ${request.client.clientName ?? request.client.clientId} ${decision.scopes.length} scope${decision.scopes.length === 1 ? '' : 's'} as credential ${credential.id}`,
      metadata: { clientId: request.client.clientId, grantId, credentialId: credential.id, scopes: decision.scopes, refused, unavailable: request.unavailable, resource: request.resource, boundaries: input.boundaries, ipAllowlist: input.ipAllowlist, expiresAt: input.expiresAt, updated: previous !== null },
    })
    return provider.interactionResult(req, res, { login: { accountId: admin }, consent: { grantId } }, { mergeWithLastSubmission: false })
  }

  /** The operator refuses: the client is told `access_denied` and nothing is granted. */
  async refuse(req: IncomingMessage, res: ServerResponse, admin: string): Promise<string> {
    const provider = await this.provider()
    const request = await this.consentRequest(req, res)
    await this.record({
      action: 'refuse', outcome: 'denied', actor: { type: 'admin', id: admin }, entity: { type: 'oauth_client', id: request.client.clientId },
      summary: `Refused ${request.client.clientName ?? request.client.clientId}`,
      metadata: { clientId: request.client.clientId, requested: [...request.grantable.map((x) => x.scope), ...request.unavailable], resource: request.resource },
    })
    return provider.interactionResult(req, res, { error: 'access_denied', error_description: 'The operator refused this request' }, { mergeWithLastSubmission: false })
  }

  /** Every OAuth grant with its credential id and client (newest first). */
  grants(): Promise<GrantLink[]> {
    return listGrantLinks(this.opts.database.db)
  }

  private async previousCredential(grantId: string): Promise<CredentialRecord | null> {
    const link = await grantLink(this.opts.database.db, grantId)
    if (!link) return null
    try {
      return await this.opts.credentials.get(link.credentialId)
    } catch {
      return null
    }
  }

  private async record(event: OAuthEvent): Promise<void> {
    const audit = this.opts.audit
    if (!audit) return
    await this.opts.database.db.transaction().execute((tx: Db) => audit(tx, event))
  }
}

function labelFor(client: SeenClient): string {
  const name = client.clientName ?? new URL(client.clientId.startsWith('http') ? client.clientId : 'oauth://client').hostname
  return `${name || client.clientId} (OAuth)`.slice(0, 200)
}

function sameOrigin(url: string, base: string): boolean {
  try {
    return new URL(url).origin === new URL(base).origin
  } catch {
    return false
  }
}
