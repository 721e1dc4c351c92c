// Who may use the admin API. Two ways in: `Authorization: Bearer <PLUGIN_GATEHOUSE_ADMIN_TOKEN>`
// (bootstrap and automation) and, once the control panel exists, an admin's session. The
// panel plugs its session check in as a resolver, so every admin route, including route
// files other parts add, goes through this one function.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { ApiError } from '../../contract/errors.js'

export interface AdminPrincipal {
  /** `token`: the configured admin token; `session`: a control-panel admin. */
  readonly type: 'token' | 'session'
  /** `admin-token`, or the admin's username. */
  readonly id: string
}

/** Resolves a control-panel session (cookie) to an admin, or undefined when there is none. */
export type AdminSessionResolver = (request: FastifyRequest) => Promise<AdminPrincipal | undefined>

export interface AdminAuthOptions {
  /** PLUGIN_GATEHOUSE_ADMIN_TOKEN; when absent the token way in is closed. */
  readonly adminToken?: string
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
      if (!expected) throw adminUnauthorized('The admin token is not configured (PLUGIN_GATEHOUSE_ADMIN_TOKEN)')
      if (!timingSafeEqual(digest(m[1]), expected)) throw adminUnauthorized('Invalid admin token')
      request.admin = { type: 'token', id: 'admin-token' }
      return request.admin
    }
    const session = opts.sessionResolver ? await opts.sessionResolver(request) : undefined
    if (session) {
      request.admin = session
      return session
    }
    throw adminUnauthorized('Missing admin credentials: send Authorization: Bearer <admin token>')
  }
}
