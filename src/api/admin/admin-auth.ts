// Who may use the admin API. Three ways in: a managed admin token (`gatehouse admin token
// create`, printed once by the first `gatehouse start`), the PLUGIN_GATEHOUSE_ADMIN_TOKEN
// setting (automation), both as `Authorization: Bearer …`, and an admin's control-panel
// session. The panel plugs its session check in as a resolver, so every admin route,
// including route files other parts add, goes through this one function.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { ApiError } from '../../kernel/errors.js'

export interface AdminPrincipal {
  /** `token`: an admin token (managed or the setting); `session`: a control-panel admin. */
  readonly type: 'token' | 'session'
  /** A managed token's id (`adm_…`), `admin-token` for the setting, or the admin's username. */
  readonly id: string
  /** A session's row digest (marks the caller's own session in session listings). */
  readonly sessionDigest?: string
}

/** Finds the active managed admin token with this value (AdminTokenService). */
export interface AdminTokenLookup {
  authenticate(token: string): Promise<{ readonly id: string } | undefined>
}

/** Resolves a control-panel session (cookie) to an admin, or undefined when there is none. */
export type AdminSessionResolver = (request: FastifyRequest) => Promise<AdminPrincipal | undefined>

export interface AdminAuthOptions {
  /** PLUGIN_GATEHOUSE_ADMIN_TOKEN; when absent only managed tokens open the token way in. */
  readonly adminToken?: string
  readonly managedTokens?: AdminTokenLookup
  readonly sessionResolver?: AdminSessionResolver
}

declare module 'fastify' {
  interface FastifyRequest {
    admin?: AdminPrincipal
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest()

export function adminUnauthorized(message: string): ApiError {
  return new ApiError('UNAUTHORIZED', message, undefined, { 'WWW-Authenticate': 'Bearer realm="gatehouse-admin"' })
}

/**
 * Builds `authenticateAdmin(request)`: resolves the request to an admin or throws 401. On
 * success the principal is also kept on `request.admin` for audit and actor fields.
 */
export function makeAdminAuthenticator(opts: AdminAuthOptions): (request: FastifyRequest) => Promise<AdminPrincipal> {
  // Compare fixed-length digests so neither the token's length nor its prefix leaks through timing.
  const expected = opts.adminToken ? digest(opts.adminToken) : undefined
  return async function authenticateAdmin(request) {
    const header = request.headers.authorization
    if (header !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
      if (!m) throw adminUnauthorized('Malformed Authorization header; expected Bearer <admin token>')
      if (expected && timingSafeEqual(digest(m[1]), expected)) {
        request.admin = { type: 'token', id: 'admin-token' }
        return request.admin
      }
      const managed = await opts.managedTokens?.authenticate(m[1])
      if (managed) {
        request.admin = { type: 'token', id: managed.id }
        return request.admin
      }
      throw adminUnauthorized('Invalid admin token (create one with: gatehouse admin token create --label NAME)')
    }
    const session = opts.sessionResolver ? await opts.sessionResolver(request) : undefined
    if (session) {
      request.admin = session
      return session
    }
    throw adminUnauthorized('Missing admin credentials: send Authorization: Bearer <admin token>')
  }
}
