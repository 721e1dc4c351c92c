// Reliability signals (requests, 5xx, auth failures, denials) counted in small time buckets
// in the database. Each process batches its counts and adds them every couple of seconds,
// so a sliding-window sum reads the same in every API process, and incident decisions
// agree across processes. Counting per request in memory and writing per bucket keeps the
// hot path free of database writes.
import { sql } from 'kysely'
import type { Db } from '../store/database.js'

// auth_failures counts presented tokens that were refused (wrong, expired, revoked, paused,
// address outside the allowlist); auth_missing counts requests with no token at all, which
// are start-up pollers and misconfigured clients far more often than attacks.
export type SignalName = 'requests' | 'server_errors' | 'auth_failures' | 'auth_missing' | 'scope_denials' | 'rate_limited' | 'rate_limit_fallbacks'

export const SIGNAL_NAMES: readonly SignalName[] = ['requests', 'server_errors', 'auth_failures', 'auth_missing', 'scope_denials', 'rate_limited', 'rate_limit_fallbacks']

const FLUSH_MS = 2000

interface PendingCount {
  readonly signal: SignalName
  readonly bucket: number
  count: number
}

export class SignalRecorder {
  private pending = new Map<string, PendingCount>()
  private timer: NodeJS.Timeout | undefined
  private lastPrune = 0
  /** Each signal's entry last counted, with its bucket and the batch it is in. */
  private readonly latest = new Map<SignalName, { bucket: number; batch: Map<string, PendingCount>; entry: PendingCount }>()

  constructor(private readonly db: Db, private readonly windowMs: number) {}

  /** Granularity of the sliding window: a tenth of it, 250 ms to 60 s. */
  get bucketMs(): number {
    return Math.min(60_000, Math.max(250, Math.floor(this.windowMs / 10)))
  }

  record(signal: SignalName, now = Date.now()): void {
    const bucket = now - (now % this.bucketMs)
    // Every request counts one: its signal's entry in the current bucket is found without
    // writing the key (a string made and hashed per request).
    const latest = this.latest.get(signal)
    if (latest !== undefined && latest.bucket === bucket && latest.batch === this.pending) {
      latest.entry.count++
    } else {
      const key = `${signal}@${bucket}`
      let entry = this.pending.get(key)
      if (entry) entry.count++
      else this.pending.set(key, (entry = { signal, bucket, count: 1 }))
      this.latest.set(signal, { bucket, batch: this.pending, entry })
    }
    if (!this.timer) {
      this.timer = setTimeout(() => { this.timer = undefined; void this.flush().catch(() => {}) }, FLUSH_MS)
      this.timer.unref()
    }
  }

  /** Adds this process's pending counts to the shared buckets. */
  async flush(now = Date.now()): Promise<void> {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined }
    const batch = [...this.pending.values()]
    this.pending = new Map()
    if (batch.length > 0) {
      try {
        await this.db.insertInto('ops_signal_buckets')
          .values(batch.map((b) => ({ signal: b.signal, bucket_start: b.bucket, count: b.count })))
          .onConflict((oc) => oc.columns(['signal', 'bucket_start']).doUpdateSet({ count: sql`ops_signal_buckets.count + excluded.count` }))
          .execute()
      } catch (err) {
        // Keep the counts for the next try rather than lose a burst of failures.
        for (const b of batch) {
          const key = `${b.signal}@${b.bucket}`
          const entry = this.pending.get(key)
          if (entry) entry.count += b.count
          else this.pending.set(key, b)
        }
        throw err
      }
    }
    if (now - this.lastPrune > 60_000) {
      this.lastPrune = now
      const keep = Math.max(2 * this.windowMs, 3_600_000)
      await this.db.deleteFrom('ops_signal_buckets').where('bucket_start', '<', now - keep).execute()
    }
  }

  /** Sums of every signal over the window ending now (all processes' flushed counts). */
  async windowSums(now = Date.now()): Promise<Record<SignalName, number>> {
    const since = now - this.windowMs
    const rows = await this.db.selectFrom('ops_signal_buckets')
      .select(['signal', (eb) => eb.fn.sum('count').as('n')])
      .where('bucket_start', '>', since - this.bucketMs)
      .groupBy('signal').execute()
    const out = Object.fromEntries(SIGNAL_NAMES.map((s) => [s, 0])) as Record<SignalName, number>
    for (const r of rows) if ((SIGNAL_NAMES as readonly string[]).includes(r.signal as string)) out[r.signal as SignalName] = Number(r.n)
    return out
  }

  close(): Promise<void> {
    return this.flush()
  }
}
