// Login throttling: failed logins are counted per client address and per username in a
// fixed window, in the database so every process sees the same counts. Past the limit,
// logins for that address or name are refused without checking the password until the
// window ends; a successful login clears its username's count.
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

  /** Counts one failure against both keys (one atomic upsert each; a stale window restarts). */
  async fail(address: string, username: string, now = Date.now()): Promise<void> {
    const cutoff = now - windowMs()
    const { db } = this.database
    for (const key of Object.values(keys(address, username))) {
      await sql`INSERT INTO panel_login_throttle (throttle_key, failures, window_started_at) VALUES (${key}, 1, ${now})
        ON CONFLICT (throttle_key) DO UPDATE SET
          failures = CASE WHEN panel_login_throttle.window_started_at <= ${cutoff} THEN 1 ELSE panel_login_throttle.failures + 1 END,
          window_started_at = CASE WHEN panel_login_throttle.window_started_at <= ${cutoff} THEN ${now} ELSE panel_login_throttle.window_started_at END`
        .execute(db)
    }
    await db.deleteFrom('panel_login_throttle').where('window_started_at', '<=', cutoff).execute()
  }

  async succeeded(username: string): Promise<void> {
    await this.database.db.deleteFrom('panel_login_throttle').where('throttle_key', '=', keys('', username).username).execute()
  }
}
