// The rows behind control-panel sessions (table panel_sessions, owned here with the admins
// they belong to). Keyed by the SHA-256 digest of the cookie's id, so the table never holds a
// usable cookie; the panel (panel/panel-sessions.ts) does the cookie and CSRF work around them.
import type { Db } from '../store/database.js'

export interface AdminSessionRow {
  readonly idDigest: string
  readonly username: string
  readonly csrfToken: string
  readonly createdAt: number
  readonly lastSeenAt: number
  readonly expiresAt: number
  /** JSON text of the pending flash message, or null. */
  readonly flash: string | null
}

/** Removes the expired rows, then stores a new session. */
export async function startAdminSession(db: Db, row: Omit<AdminSessionRow, 'flash'>): Promise<void> {
  await db.deleteFrom('panel_sessions').where('expires_at', '<=', row.createdAt).execute()
  await db.insertInto('panel_sessions').values({
    id_digest: row.idDigest, username: row.username, csrf_token: row.csrfToken, created_at: row.createdAt,
    last_seen_at: row.lastSeenAt, expires_at: row.expiresAt, flash: null,
  }).execute()
}

export async function findAdminSession(db: Db, idDigest: string): Promise<AdminSessionRow | undefined> {
  const row = await db.selectFrom('panel_sessions').selectAll().where('id_digest', '=', idDigest).executeTakeFirst()
  if (!row) return undefined
  return {
    idDigest, username: row.username as string, csrfToken: row.csrf_token as string, createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at), expiresAt: Number(row.expires_at), flash: (row.flash as string | null) ?? null,
  }
}

/** Slides a session's idle expiry. */
export async function touchAdminSession(db: Db, idDigest: string, lastSeenAt: number, expiresAt: number): Promise<void> {
  await db.updateTable('panel_sessions').set({ last_seen_at: lastSeenAt, expires_at: expiresAt }).where('id_digest', '=', idDigest).execute()
}

export async function endAdminSession(db: Db, idDigest: string): Promise<void> {
  await db.deleteFrom('panel_sessions').where('id_digest', '=', idDigest).execute()
}

/** Sets (or with null clears) the session's pending flash message (JSON text). */
export async function setSessionFlash(db: Db, idDigest: string, flash: string | null): Promise<void> {
  await db.updateTable('panel_sessions').set({ flash }).where('id_digest', '=', idDigest).execute()
}

/** Ends every session of `username` but `keepDigest`; answers how many ended. */
export async function endSessionsOf(db: Db, username: string, keepDigest?: string): Promise<number> {
  let q = db.deleteFrom('panel_sessions').where('username', '=', username)
  if (keepDigest !== undefined) q = q.where('id_digest', '<>', keepDigest)
  return Number((await q.executeTakeFirst()).numDeletedRows)
}

/** Live sessions (not expired at `now`), of one admin or of all, oldest first. */
export async function listLiveSessions(db: Db, now: number, username?: string): Promise<AdminSessionRow[]> {
  let q = db.selectFrom('panel_sessions').selectAll().where('expires_at', '>', now)
  if (username !== undefined) q = q.where('username', '=', username)
  const rows = await q.orderBy('username').orderBy('created_at').orderBy('id_digest').execute()
  return rows.map((row) => ({
    idDigest: row.id_digest as string, username: row.username as string, csrfToken: row.csrf_token as string, createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at), expiresAt: Number(row.expires_at), flash: (row.flash as string | null) ?? null,
  }))
}

/** Ends the sessions whose digests are given; answers how many ended. */
export async function endSessions(db: Db, idDigests: readonly string[]): Promise<number> {
  if (idDigests.length === 0) return 0
  return Number((await db.deleteFrom('panel_sessions').where('id_digest', 'in', idDigests).executeTakeFirst()).numDeletedRows)
}
