// Login throttling: failed logins are counted per client address, per username from that
// address, and per username in all, in a fixed window, in the database so every process sees
// the same counts. Past a limit, logins are refused without checking the password until the
// window ends (see `over`); a successful login clears its username's counts. Each attempt is
// counted (reserved) before its password is checked, in one atomic upsert per key, so parallel
// guesses cannot all pass the check before the first failure is counted.
import { sql } from 'kysely'
import type { Database } from '../store/database.js'

export const THROTTLE_LIMITS = Object.freeze({ windowMinutes: 15, perUsername: 5, perUsernameTotal: 50, perAddress: 20 })

const windowMs = () => THROTTLE_LIMITS.windowMinutes * 60_000
const keys = (address: string, username: string) => {
  const name = username.toLowerCase().slice(0, 200)
  return { address: `address:${address}`, pair: `pair:${address}|${name}`, username: `username:${name}` }
}

type Counts = { readonly address: number; readonly pair: number; readonly username: number }
type Windows = { readonly address: number; readonly pair: number; readonly username: number }

/**
 * Which limit holds. A name counts its failures per address (5) and in all (50): past the
 * total, an address that has failed for the name is refused, one that has not may still try.
 * Counted only in all, five wrong passwords from anywhere locked an admin out for the window,
 * again and again; counted only per address, a name could be guessed from many addresses.
 */
function over(c: Counts, strict: boolean): ('address' | 'pair' | 'username')[] {
  const past = (n: number, limit: number) => (strict ? n > limit : n >= limit)
  const held: ('address' | 'pair' | 'username')[] = []
  if (past(c.address, THROTTLE_LIMITS.perAddress)) held.push('address')
  if (past(c.pair, THROTTLE_LIMITS.perUsername)) held.push('pair')
  // This address failed for the name before (a reserved attempt counts itself: more than one).
  if (past(c.username, THROTTLE_LIMITS.perUsernameTotal) && c.pair > (strict ? 1 : 0)) held.push('username')
  return held
}

export class LoginThrottle {
  constructor(private readonly database: Database) {}

  /** Seconds until a login may be tried again, or 0 when it may be tried now. */
  async retryAfter(address: string, username: string, now = Date.now()): Promise<number> {
    const k = keys(address, username)
    const rows = await this.database.db.selectFrom('panel_login_throttle').selectAll()
      .where('throttle_key', 'in', [k.address, k.pair, k.username]).where('window_started_at', '>', now - windowMs()).execute()
    const row = (key: string) => rows.find((r) => r.throttle_key === key)
    const counts: Counts = { address: Number(row(k.address)?.failures ?? 0), pair: Number(row(k.pair)?.failures ?? 0), username: Number(row(k.username)?.failures ?? 0) }
    const started: Windows = { address: Number(row(k.address)?.window_started_at ?? now), pair: Number(row(k.pair)?.window_started_at ?? now), username: Number(row(k.username)?.window_started_at ?? now) }
    return waitFor(over(counts, false), started, now)
  }

  /**
   * Reserves one attempt before the password is checked: counts it against each key (one
   * atomic upsert each; a stale window restarts) and answers 0 when the password may be
   * checked. Over a limit it takes the attempt back and answers the seconds until that
   * window ends. A failed check leaves the attempt counted; a success undoes it (succeeded).
   */
  async reserve(address: string, username: string, now = Date.now()): Promise<number> {
    const cutoff = now - windowMs()
    const { db } = this.database
    const k = keys(address, username)
    const counts: Record<string, number> = {}
    const started: Record<string, number> = {}
    for (const [name, key] of [['address', k.address], ['pair', k.pair], ['username', k.username]] as const) {
      const { rows } = await sql<{ failures: number | string; window_started_at: number | string }>`
        INSERT INTO panel_login_throttle (throttle_key, failures, window_started_at) VALUES (${key}, 1, ${now})
        ON CONFLICT (throttle_key) DO UPDATE SET
          failures = CASE WHEN panel_login_throttle.window_started_at <= ${cutoff} THEN 1 ELSE panel_login_throttle.failures + 1 END,
          window_started_at = CASE WHEN panel_login_throttle.window_started_at <= ${cutoff} THEN ${now} ELSE panel_login_throttle.window_started_at END
        RETURNING failures, window_started_at`.execute(db)
      counts[name] = Number(rows[0]?.failures ?? 1)
      started[name] = Number(rows[0]?.window_started_at ?? now)
    }
    const wait = waitFor(over(counts as Counts, true), started as Windows, now)
    if (wait > 0) await this.release([k.address, k.pair, k.username])
    else await db.deleteFrom('panel_login_throttle').where('window_started_at', '<=', cutoff).execute()
    return wait
  }

  /** Takes a reserved attempt back from `keys`. */
  private async release(which: readonly string[]): Promise<void> {
    await this.database.db.updateTable('panel_login_throttle').set((eb) => ({ failures: eb('failures', '-', 1) }))
      .where('throttle_key', 'in', which).where('failures', '>', 0).execute()
  }

  /** After a successful login: clears the name's counts and takes the attempt back from the address. */
  async succeeded(address: string, username: string): Promise<void> {
    const k = keys(address, username)
    await this.database.db.deleteFrom('panel_login_throttle').where('throttle_key', 'in', [k.username, k.pair]).execute()
    await this.release([k.address])
  }
}

/** Seconds until the longest of the held limits' windows ends (0 when none holds). */
function waitFor(held: readonly (keyof Windows)[], started: Windows, now: number): number {
  return held.reduce((wait, which) => Math.max(wait, Math.max(1, Math.ceil((started[which] + windowMs() - now) / 1000))), 0)
}
