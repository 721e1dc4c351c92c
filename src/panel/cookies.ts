// The two cookies the panel sets, read and written by hand (one cookie parser is not worth
// a dependency). Both are HttpOnly (no script reads them) and SameSite=Strict (no other
// site's page can make the browser send them); Secure when the site is served over HTTPS.
import type { FastifyRequest } from 'fastify'

export const SESSION_COOKIE = 'gatehouse_session'
export const LOGIN_CSRF_COOKIE = 'gatehouse_login_csrf'

/** The value of cookie `name` in the request, if any. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

export interface CookieOptions {
  readonly path: string
  readonly secure: boolean
  /** Seconds; 0 deletes the cookie. Absent: a browser-session cookie. */
  readonly maxAge?: number
}

export function serializeCookie(name: string, value: string, opts: CookieOptions): string {
  const parts = [`${name}=${value}`, `Path=${opts.path}`, 'HttpOnly', 'SameSite=Strict']
  if (opts.maxAge !== undefined) parts.push(`Max-Age=${opts.maxAge}`)
  if (opts.maxAge === 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT')
  if (opts.secure) parts.push('Secure')
  return parts.join('; ')
}
