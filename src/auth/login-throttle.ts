// Login throttling: failed logins are counted per client address and per username in a
// fixed window, in the database so every process sees the same counts. Past the limit,
// logins for that address or name are refused without checking the password until the
// window ends; a successful login clears its username's count. Each attempt is counted
// (reserved) before its password is checked, in one atomic upsert per key, so parallel
// guesses cannot all pass the check before the first failure is counted.
import { sql } from 'kysely'
import type { Database } from '../store/database.js'

export const THROTTLE_LIMITS = Object.freeze({ windowMinutes: 15, perUsername: 5, perAddress: 20 })

const windowMs = () => THROTTLE_LIMITS.windowMinutes * 60_000
const keys = (address: string, username: string) => ({
  address: `address:${address}`,
  username: `username:${username.toLowerCase().slice(0, 200)}`,
})

export class LoginThrottle {
  constructor(private readonly database: Database) {}

  /** Seconds until a login may be tried again, or 0 when it may be tried now. */
  async retryAfter(address: string, username: string, now = Date.now()): Promise<number> {
    const k = keys(address, username)
    const rows = await this.database.db.selectFrom('panel_login_throttle').selectAll()
      .where('throttle_key', 'in', [k.address, k.username]).where('window_started_at', '>', now - windowMs()).execute()
    let wait = 0
    for (const r of rows) {
      const limit = r.throttle_key === k.address ? THROTTLE_LIMITS.perAddress : THROTTLE_LIMITS.perUsername
      if (Number(r.failures) >= limit) wait = Math.max(wait, Math.ceil((Number(r.window_started_at) + windowMs() - now) / 1000))
    }
    return wait
  }

  /**
   * Reserves one attempt before the password is checked: counts it against both keys (one
   * atomic upsert each; a stale window restarts) and answers 0 when the password may be
   * checked. Over either limit it takes the attempt back and answers the seconds until the
   * window ends. A failed check leaves the attempt counted; a success undoes it (succeeded).
   */
  async reserve(address: string, username: string, now = Date.now()): Promise<number> {
    const cutoff = now - windowMs()
    const { db } = this.database
    const k = keys(address, username)
    let wait = 0
    for (const key of [k.address, k.username]) {
      const { rows } = await sql<{ failures: number | string; window_started_at: number | string }>`
        INSERT INTO panel_login_throttle (throttle_key, failures, window_started_at) VALUES (${key}, 1, ${now})
        ON CONFLICT (throttle_key) DO UPDATE SET
          failures = CASE WHEN panel_login_throttle.window_started_at <= ${cutoff} THEN 1 ELSE panel_login_throttle.failures + 1 END,
          window_started_at = CASE WHEN panel_login_throttle.window_started_at <= ${cutoff} THEN ${now} ELSE panel_login_throttle.window_started_at END
        RETURNING failures, window_started_at`.execute(db)
      const limit = key === k.address ? THROTTLE_LIMITS.perAddress : THROTTLE_LIMITS.perUsername
      const r = rows[0]
      if (r && Number(r.failures) > limit) wait = Math.max(wait, Math.max(1, Math.ceil((Number(r.window_started_at) + windowMs() - now) / 1000)))
    }
    if (wait > 0) await this.release(address, username, true)
    else await db.deleteFrom('panel_login_throttle').where('window_started_at', '<=', cutoff).execute()
    return wait
  }

  /** Takes a reserved attempt back from the address (and the username) key. */
  private async release(address: string, username: string, withUsername: boolean): Promise<void> {
    const k = keys(address, username)
    await this.database.db.updateTable('panel_login_throttle').set((eb) => ({ failures: eb('failures', '-', 1) }))
      .where('throttle_key', 'in', withUsername ? [k.address, k.username] : [k.address]).where('failures', '>', 0).execute()
  }

  /** After a successful login: clears the username's count and takes the attempt back from the address. */
  async succeeded(address: string, username: string): Promise<void> {
    await this.database.db.deleteFrom('panel_login_throttle').where('throttle_key', '=', keys(address, username).username).execute()
    await this.release(address, username, false)
  }
}
