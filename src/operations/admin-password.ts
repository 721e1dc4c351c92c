// A new admin password ends the account's panel sessions (a cookie stolen or left open
// before the change must not keep opening the panel and the admin API for up to 12 hours),
// in the same transaction as the new hash, and is audited (never the password or hash).
import type { Db } from '../store/database.js'
import { ApiError } from '../kernel/errors.js'
import { appendAudit } from '../control/audit-log.js'
import type { Actor } from '../control/actor.js'
import { checkPassword, setPasswordHash } from '../auth/admin-accounts.js'
import { endSessionsOf } from '../auth/admin-sessions.js'
import { hashPassword } from '../auth/passwords.js'

/** Sets the password and ends every session of `username` except `keepSessionDigest` (the caller's own, when changed from the panel); answers how many ended. */
export async function changeAdminPassword(db: Db, username: string, password: string, by: Actor, keepSessionDigest?: string): Promise<{ sessionsEnded: number }> {
  checkPassword(password)
  // scrypt before the transaction: no write lock is held while it runs.
  const hash = await hashPassword(password)
  return db.transaction().execute(async (tx) => {
    if (!(await setPasswordHash(tx, username, hash))) throw new ApiError('NOT_FOUND', `No admin named ${username}`)
    const sessionsEnded = await endSessionsOf(tx, username, keepSessionDigest)
    await appendAudit(tx, {
      category: 'credential', action: 'admin.password_changed', outcome: 'success', actor: by, requestId: null,
      entity: { type: 'admin', id: username },
      summary: `changed the password of admin ${username}; ${sessionsEnded} panel session${sessionsEnded === 1 ? '' : 's'} ended`,
      metadata: { sessionsEnded },
    })
    return { sessionsEnded }
  })
}
