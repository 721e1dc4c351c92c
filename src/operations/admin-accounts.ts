// Operators' control over admin accounts and their panel sessions, shared by the CLI
// (`gatehouse admin sessions …`, `gatehouse admin delete`), the admin API (`/admins…`) and the
// panel's Accounts screen: list live sessions, end one or all of an admin's, delete an admin
// (never the last one: nobody could sign in to the panel again). Each change is audited in
// its own transaction, never with a cookie or its digest: sessions are named by a short id
// derived from the digest (`ses_` and its first 16 hex digits), which opens nothing.
import type { Database, Db } from '../store/database.js'
import { ApiError, invalid } from '../kernel/errors.js'
import { appendAudit } from '../control/audit-log.js'
import type { Actor } from '../control/actor.js'
import { adminExists, countAdmins, listAdmins, removeAdminRow } from '../auth/admin-accounts.js'
import { endSessions, endSessionsOf, listLiveSessions, type AdminSessionRow } from '../auth/admin-sessions.js'

/** Advisory lock of account deletions (beside SCHEMA_LOCK 7270001, CHANGE_LOG_LOCK 7270002, POLICY_LOCK 7270003). */
export const ADMIN_ACCOUNTS_LOCK = 7270004

export const SESSION_ID_PATTERN = /^ses_[0-9a-f]{16}$/

export interface AdminSessionInfo {
  /** `ses_` and the first 16 hex digits of the row's digest: names the session, opens nothing. */
  readonly id: string
  readonly username: string
  readonly createdAt: string
  readonly lastSeenAt: string
  readonly expiresAt: string
  /** The session this request came with (the panel and a session-authenticated admin API call). */
  readonly current: boolean
}

/** Which sessions to end: one by id, or every one of an admin. */
export type SessionTarget = { readonly id: string } | { readonly username: string }

export const sessionId = (idDigest: string) => `ses_${idDigest.slice(0, 16)}`

const iso = (ms: number) => new Date(ms).toISOString()
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

function info(row: AdminSessionRow, currentDigest?: string): AdminSessionInfo {
  return {
    id: sessionId(row.idDigest), username: row.username, createdAt: iso(row.createdAt), lastSeenAt: iso(row.lastSeenAt),
    expiresAt: iso(row.expiresAt), current: row.idDigest === currentDigest,
  }
}

async function requireAdmin(db: Db, username: string): Promise<void> {
  if (!(await adminExists(db, username))) throw new ApiError('NOT_FOUND', `No admin named ${username}`)
}

export interface AdminAccountInfo {
  readonly username: string
  readonly createdAt: string
  /** Panel sessions not yet expired. */
  readonly liveSessions: number
}

/** Every admin with its count of live sessions. */
export async function listAdminAccounts(db: Db, now = Date.now()): Promise<AdminAccountInfo[]> {
  const live = await listLiveSessions(db, now)
  return (await listAdmins(db)).map((a) => ({ ...a, liveSessions: live.filter((s) => s.username === a.username).length }))
}

/** Live sessions, of `username` when given (404 for an unknown admin), oldest first per admin. */
export async function listAdminSessions(db: Db, opts: { readonly username?: string; readonly currentDigest?: string } = {}, now = Date.now()): Promise<AdminSessionInfo[]> {
  if (opts.username !== undefined) await requireAdmin(db, opts.username)
  return (await listLiveSessions(db, now, opts.username)).map((r) => info(r, opts.currentDigest))
}

/** Ends one session (404 when no live session has that id) or all of an admin's; audited. */
export async function endAdminSessions(db: Db, target: SessionTarget, by: Actor, now = Date.now()): Promise<{ readonly ended: AdminSessionInfo[] }> {
  if ('id' in target && !SESSION_ID_PATTERN.test(target.id)) throw invalid('id', 'not a session id: ses_ and 16 hex digits, as the session listing shows')
  return db.transaction().execute(async (tx) => {
    if ('username' in target) await requireAdmin(tx, target.username)
    const live = await listLiveSessions(tx, now, 'username' in target ? target.username : undefined)
    const chosen = 'id' in target ? live.filter((r) => sessionId(r.idDigest) === target.id) : live
    if ('id' in target && chosen.length === 0) throw new ApiError('NOT_FOUND', `No live session ${target.id}`)
    await endSessions(tx, chosen.map((r) => r.idDigest))
    const ended = chosen.map((r) => info(r))
    const whose = 'id' in target ? (chosen[0]?.username ?? '') : target.username
    await appendAudit(tx, {
      category: 'credential', action: 'admin.sessions_ended', outcome: 'success', actor: by, requestId: null,
      entity: { type: 'admin', id: whose },
      summary: 'id' in target ? `ended panel session ${target.id} of admin ${whose}` : `ended ${plural(ended.length, 'panel session')} of admin ${whose}`,
      metadata: { sessionIds: ended.map((s) => s.id), count: ended.length },
    })
    return { ended }
  })
}

/**
 * Deletes an admin and ends its sessions, in one transaction that takes turns with every other
 * deletion (so two admins deleting each other cannot leave none). The last admin is refused
 * with 409, and the refusal is audited too.
 */
export async function deleteAdmin(database: Database, username: string, by: Actor): Promise<{ readonly username: string; readonly sessionsEnded: number }> {
  const outcome = await database.db.transaction().execute(async (tx) => {
    await database.adapter.transactionLock(tx, ADMIN_ACCOUNTS_LOCK)
    await requireAdmin(tx, username)
    if ((await countAdmins(tx)) <= 1) {
      await appendAudit(tx, {
        category: 'credential', action: 'admin.deleted', outcome: 'denied', actor: by, requestId: null,
        entity: { type: 'admin', id: username }, summary: `refused to delete admin ${username}: it is the last admin`, metadata: { reason: 'last_admin' },
      })
      return { refused: true as const }
    }
    const sessionsEnded = await endSessionsOf(tx, username)
    await removeAdminRow(tx, username)
    await appendAudit(tx, {
      category: 'credential', action: 'admin.deleted', outcome: 'success', actor: by, requestId: null,
      entity: { type: 'admin', id: username }, summary: `deleted admin ${username}; ${plural(sessionsEnded, 'panel session')} ended`,
      metadata: { sessionsEnded },
    })
    return { refused: false as const, sessionsEnded }
  })
  if (outcome.refused) {
    throw new ApiError('CONFLICT', `${username} is the last admin and cannot be deleted: create another admin first (gatehouse admin create), so someone can still sign in to the control panel`)
  }
  return { username, sessionsEnded: outcome.sessionsEnded }
}
