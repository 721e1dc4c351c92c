// Control-panel sessions, kept in the database so any process behind a load balancer
// serves any admin. The cookie carries a random 256-bit id; the row is keyed by its
// SHA-256 digest, so reading the table does not yield a usable cookie. A session ends
// after SESSION_LIMITS.idleMinutes without a request, SESSION_LIMITS.absoluteHours after
// login, or at logout. The same session also authenticates the admin API (`adminResolver`).
import { createHash, randomBytes } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import type { Database } from '../store/database.js'
import type { Settings } from '../kernel/settings.js'
import { ApiError } from '../kernel/errors.js'
import type { AdminSessionResolver } from '../api/admin/admin-auth.js'
import { readCookie, serializeCookie, SESSION_COOKIE } from './cookies.js'
import { newToken, tokensMatch } from './csrf.js'
import { adminExists } from '../auth/admin-accounts.js'
import { endAdminSession, findAdminSession, setSessionFlash, startAdminSession, touchAdminSession } from '../auth/admin-sessions.js'

export const SESSION_LIMITS = Object.freeze({ idleMinutes: 30, absoluteHours: 12, touchSeconds: 60 })
/** Header a session-authenticated admin API request that changes state must carry. */
export const ADMIN_CSRF_HEADER = 'x-gatehouse-csrf'
export const COOKIE_PATH = '/gatehouse'

export interface Flash {
  readonly kind: 'ok' | 'error'
  readonly text: string
}

export interface PanelSession {
  readonly idDigest: string
  readonly username: string
  readonly csrfToken: string
  readonly flash: Flash | null
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
const digest = (id: string) => createHash('sha256').update(id).digest('hex')

export class PanelSessions {
  /** Cookies get `Secure` when the public address is HTTPS. */
  readonly secure: boolean

  constructor(private readonly database: Database, settings: Settings) {
    this.secure = settings.baseUrl.startsWith('https:')
  }

  /** Starts a session for `username`; returns the Set-Cookie value. Expired rows are swept here. */
  async create(username: string, now = Date.now()): Promise<string> {
    const id = randomBytes(32).toString('base64url')
    await startAdminSession(this.database.db, {
      idDigest: digest(id), username, csrfToken: newToken(), createdAt: now, lastSeenAt: now, expiresAt: this.expiry(now, now),
    })
    return serializeCookie(SESSION_COOKIE, id, { path: COOKIE_PATH, secure: this.secure })
  }

  /** The request's live session; slides the idle expiry at most once a minute. */
  async resolve(request: FastifyRequest, now = Date.now()): Promise<PanelSession | undefined> {
    const id = readCookie(request, SESSION_COOKIE)
    if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined
    const key = digest(id)
    const row = await findAdminSession(this.database.db, key)
    if (!row || row.expiresAt <= now) return undefined
    // The admin may have been removed since login: the session ends with the account.
    if (!(await adminExists(this.database.db, row.username))) return undefined
    if (now - row.lastSeenAt >= SESSION_LIMITS.touchSeconds * 1000) {
      await touchAdminSession(this.database.db, key, now, this.expiry(row.createdAt, now))
    }
    return { idDigest: key, username: row.username, csrfToken: row.csrfToken, flash: row.flash ? (JSON.parse(row.flash) as Flash) : null }
  }

  async destroy(session: PanelSession): Promise<void> {
    await endAdminSession(this.database.db, session.idDigest)
  }

  /** The cookie that makes the browser forget the session. */
  clearCookie(): string {
    return serializeCookie(SESSION_COOKIE, '', { path: COOKIE_PATH, secure: this.secure, maxAge: 0 })
  }

  /** A message for the next page this session sees (Post/Redirect/Get). */
  async setFlash(session: PanelSession, flash: Flash): Promise<void> {
    await setSessionFlash(this.database.db, session.idDigest, JSON.stringify(flash))
  }

  /** The pending message, removed so it shows once. */
  async takeFlash(session: PanelSession): Promise<Flash | null> {
    if (!session.flash) return null
    await setSessionFlash(this.database.db, session.idDigest, null)
    return session.flash
  }

  /**
   * The admin API's session check. Reads need only the cookie; a request that changes
   * state must also send the session's CSRF token in X-Gatehouse-Csrf, because an empty
   * cross-site form POST would otherwise reach routes that take no body.
   */
  readonly adminResolver: AdminSessionResolver = async (request) => {
    const session = await this.resolve(request)
    if (!session) return undefined
    if (!SAFE_METHODS.has(request.method) && !tokensMatch(request.headers[ADMIN_CSRF_HEADER], session.csrfToken)) {
      throw new ApiError('FORBIDDEN', 'A session request that changes state needs the X-Gatehouse-Csrf header (the token is on every control-panel page)')
    }
    return { type: 'session', id: session.username, sessionDigest: session.idDigest }
  }

  private expiry(createdAt: number, now: number): number {
    return Math.min(now + SESSION_LIMITS.idleMinutes * 60_000, createdAt + SESSION_LIMITS.absoluteHours * 3_600_000)
  }
}
