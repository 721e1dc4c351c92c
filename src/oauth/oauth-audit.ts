// What the authorization server puts in the audit log: every grant and refusal (oauth-service.ts),
// every token issued at the token endpoint, and every revocation (RFC 7009 requests, a reused
// refresh token revoking its grant, a revoked credential ending its grants). Records name the
// client, grant and credential, never a token, code or secret. A callback, so this part does
// not depend on the control plane that keeps the log.
import type Provider from 'oidc-provider'
import type { Logger } from 'pino'
import type { Db } from '../store/database.js'

export interface OAuthEvent {
  readonly action: 'grant' | 'refuse' | 'token' | 'revoke'
  readonly outcome: 'success' | 'denied'
  /** The admin who decided, or the authorization server (`system`) for what a client did; the client is in metadata. */
  readonly actor: { readonly type: 'admin' | 'system' | 'cli'; readonly id: string }
  readonly entity: { readonly type: string; readonly id: string } | null
  readonly summary: string
  readonly metadata: Readonly<Record<string, unknown>>
}

export type OAuthAuditHook = (tx: Db, event: OAuthEvent) => Promise<void>

const SERVER = { type: 'system', id: 'authorization-server' } as const

interface TokenLike { readonly kind?: string; readonly clientId?: string; readonly grantId?: string; readonly scope?: string; readonly aud?: unknown }

/** Audits the library's token events; failures are logged, never thrown into the flow. */
export function auditProviderEvents(provider: Provider, record: (event: OAuthEvent) => Promise<void>, logger: Logger): void {
  const safely = (event: OAuthEvent) => { record(event).catch((err: unknown) => logger.error({ err }, 'OAuth audit record failed')) }
  provider.on('grant.success', (koa) => {
    const ctx = koa as unknown as { oidc: { params?: Record<string, unknown>; entities: Record<string, TokenLike | undefined> } }
    const { AccessToken: at, RefreshToken: rt, Client: client } = ctx.oidc.entities
    const clientId = at?.clientId ?? (client as { clientId?: string } | undefined)?.clientId ?? 'unknown'
    safely({
      action: 'token', outcome: 'success', actor: SERVER, entity: at?.grantId ? { type: 'oauth_grant', id: at.grantId } : null,
      summary: `Issued an access token${rt ? ' and a refresh token' : ''} to ${clientId} (${String(ctx.oidc.params?.grant_type ?? 'unknown grant')})`,
      metadata: { clientId, grantId: at?.grantId ?? null, grantType: ctx.oidc.params?.grant_type ?? null, scope: at?.scope ?? null, resource: at?.aud ?? null, refreshToken: rt !== undefined },
    })
  })
  const destroyed = (token: TokenLike) => safely({
    action: 'revoke', outcome: 'success', actor: SERVER, entity: token.grantId ? { type: 'oauth_grant', id: token.grantId } : null,
    summary: `Revoked ${token.kind === 'RefreshToken' ? 'a refresh token' : 'an access token'} of ${token.clientId ?? 'unknown client'}`,
    metadata: { clientId: token.clientId ?? null, grantId: token.grantId ?? null, kind: token.kind ?? null },
  })
  provider.on('access_token.destroyed', (t) => destroyed(t as unknown as TokenLike))
  provider.on('refresh_token.destroyed', (t) => destroyed(t as unknown as TokenLike))
  provider.on('grant.revoked', (_ctx, grantId) => safely({
    action: 'revoke', outcome: 'success', actor: SERVER, entity: { type: 'oauth_grant', id: grantId },
    summary: `Revoked grant ${grantId} and its tokens`, metadata: { grantId },
  }))
  // Library errors are logged without the request (whose form carries codes and tokens).
  provider.on('server_error', (_ctx, err) => logger.error({ err: { message: err.message, name: err.name } }, 'OAuth server error'))
}
