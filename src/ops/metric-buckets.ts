// Time-bucketed counters for the operator console's charts: requests, 4xx and 5xx answers,
// refusals, a small fixed latency histogram (for p95) and webhook delivery outcomes, per
// minute and per hour, per credential. Every process adds its counts to the same rows
// (`ops_metric_buckets`), so a chart shows the whole site however many API and worker
// processes run. The request path only increments numbers in memory; the counts are added
// to the database every few seconds in one statement, and old buckets are pruned.
import { sql } from 'kysely'
import type { Db } from '../store/database.js'

/** Upper bounds (ms) of the latency buckets lat_0..lat_10; lat_11 counts slower requests. Fixed by migration 013. */
export const LATENCY_BOUNDS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000] as const
const LATENCY_COLUMNS = Array.from({ length: LATENCY_BOUNDS_MS.length + 1 }, (_, i) => `lat_${i}`)

const COUNTERS = ['requests', 'client_errors', 'server_errors', 'auth_failures', 'scope_denials', 'rate_limited', 'delivered', 'failed_attempts', 'dead_lettered'] as const
export type Counter = (typeof COUNTERS)[number]

export const MINUTE_MS = 60_000
export const HOUR_MS = 3_600_000
/** How long each resolution is kept: minutes for the hour and day charts, hours for the week. */
const KEEP_MS: Readonly<Record<number, number>> = { [MINUTE_MS]: 26 * HOUR_MS, [HOUR_MS]: 8 * 24 * HOUR_MS }
const FLUSH_MS = 5000
const PRUNE_EVERY_MS = 10 * 60_000
const ROWS_PER_STATEMENT = 200

interface Cell {
  readonly resolution: number
  readonly bucket: number
  readonly subject: string
  readonly counts: Record<Counter, number>
  readonly latency: number[]
  latencySum: number
}

const emptyCounts = (): Record<Counter, number> => ({
  requests: 0, client_errors: 0, server_errors: 0, auth_failures: 0, scope_denials: 0, rate_limited: 0, delivered: 0, failed_attempts: 0, dead_lettered: 0,
})

function latencyIndex(ms: number): number {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) if (ms <= LATENCY_BOUNDS_MS[i]) return i
  return LATENCY_BOUNDS_MS.length
}

/** One process's pending counts, added to the shared buckets every few seconds. */
export class MetricBuckets {
  private pending = new Map<string, Cell>()
  /** The cell counted last (one credential's requests come in runs): found without a key. */
  private lastCell: Cell | undefined
  private timer: NodeJS.Timeout | undefined
  private flushing: Promise<void> = Promise.resolve()
  private lastPrune = 0

  constructor(private readonly db: Db, private readonly clock: () => number = Date.now) {}

  /** An answered machine-API request of `subject` (a credential id, or '' without one). */
  observeRequest(subject: string, status: number, elapsedMs: number): void {
    const cell = this.cell(subject)
    cell.counts.requests++
    if (status >= 500) cell.counts.server_errors++
    else if (status >= 400) cell.counts.client_errors++
    cell.latency[latencyIndex(elapsedMs)]++
    cell.latencySum += elapsedMs
  }

  /** A counter without latency: refusals of a credential, or a delivery outcome (subject ''). */
  count(subject: string, counter: Counter, n = 1): void {
    this.cell(subject).counts[counter] += n
  }

  /** A delivery attempt's outcome: delivered, or failed (retried later or dead-lettered). */
  recordDelivery(outcome: 'delivered' | 'retrying' | 'failed'): void {
    if (outcome === 'delivered') return this.count('', 'delivered')
    this.count('', 'failed_attempts')
    if (outcome === 'failed') this.count('', 'dead_lettered')
  }

  private cell(subject: string): Cell {
    const now = this.clock()
    const bucket = now - (now % MINUTE_MS)
    const last = this.lastCell
    if (last !== undefined && last.bucket === bucket && last.subject === subject) return last
    const key = `${bucket}|${subject}`
    let cell = this.pending.get(key)
    if (!cell) {
      cell = { resolution: MINUTE_MS, bucket, subject, counts: emptyCounts(), latency: new Array<number>(LATENCY_COLUMNS.length).fill(0), latencySum: 0 }
      this.pending.set(key, cell)
      if (!this.timer) {
        this.timer = setTimeout(() => { this.timer = undefined; void this.flush().catch(() => {}) }, FLUSH_MS)
        this.timer.unref()
      }
    }
    this.lastCell = cell
    return cell
  }

  /** Adds this process's pending counts to the shared buckets (minute and hour rows). */
  flush(): Promise<void> {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined }
    const batch = [...this.pending.values()]
    this.pending = new Map()
    this.lastCell = undefined
    this.flushing = this.flushing.catch(() => {}).then(() => this.write(batch))
    return this.flushing
  }

  close(): Promise<void> {
    return this.flush()
  }

  private async write(minutes: readonly Cell[]): Promise<void> {
    const cells = [...minutes, ...rollUp(minutes, HOUR_MS)]
    try {
      for (let i = 0; i < cells.length; i += ROWS_PER_STATEMENT) {
        const rows = cells.slice(i, i + ROWS_PER_STATEMENT).map((c) => ({
          resolution_ms: c.resolution, bucket_start: c.bucket, subject: c.subject, ...c.counts,
          ...Object.fromEntries(c.latency.map((n, j) => [LATENCY_COLUMNS[j], n])), latency_ms_sum: c.latencySum,
        }))
        const add = (column: string) => sql`${sql.ref(`ops_metric_buckets.${column}`)} + ${sql.ref(`excluded.${column}`)}`
        await this.db.insertInto('ops_metric_buckets').values(rows)
          .onConflict((oc) => oc.columns(['resolution_ms', 'bucket_start', 'subject'])
            .doUpdateSet(Object.fromEntries([...COUNTERS, ...LATENCY_COLUMNS, 'latency_ms_sum'].map((c) => [c, add(c)]))))
          .execute()
      }
    } catch (err) {
      // Keep the counts for the next flush rather than lose them to a passing database error.
      for (const c of minutes) this.merge(c)
      throw err
    }
    const now = this.clock()
    if (now - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = now
      for (const [resolution, keep] of Object.entries(KEEP_MS)) {
        await this.db.deleteFrom('ops_metric_buckets').where('resolution_ms', '=', Number(resolution)).where('bucket_start', '<', now - keep).execute()
      }
    }
  }

  private merge(c: Cell): void {
    const key = `${c.bucket}|${c.subject}`
    const into = this.pending.get(key)
    if (!into) { this.pending.set(key, c); return }
    for (const k of COUNTERS) into.counts[k] += c.counts[k]
    c.latency.forEach((n, i) => { into.latency[i] += n })
    into.latencySum += c.latencySum
  }
}

/** Minute cells summed into cells of `resolution`. */
function rollUp(cells: readonly Cell[], resolution: number): Cell[] {
  const out = new Map<string, Cell>()
  for (const c of cells) {
    const bucket = c.bucket - (c.bucket % resolution)
    const key = `${bucket}|${c.subject}`
    let into = out.get(key)
    if (!into) {
      into = { resolution, bucket, subject: c.subject, counts: emptyCounts(), latency: new Array<number>(LATENCY_COLUMNS.length).fill(0), latencySum: 0 }
      out.set(key, into)
    }
    for (const k of COUNTERS) into.counts[k] += c.counts[k]
    c.latency.forEach((n, i) => { into.latency[i] += n })
    into.latencySum += c.latencySum
  }
  return [...out.values()]
}

export const CHART_RANGES = ['hour', 'day', 'week'] as const
export type ChartRange = (typeof CHART_RANGES)[number]

/** Span, point width and stored resolution of each range. */
export const RANGE_SHAPES: Readonly<Record<ChartRange, { readonly spanMs: number; readonly stepMs: number; readonly resolution: number }>> = {
  hour: { spanMs: HOUR_MS, stepMs: MINUTE_MS, resolution: MINUTE_MS },
  day: { spanMs: 24 * HOUR_MS, stepMs: 15 * MINUTE_MS, resolution: MINUTE_MS },
  week: { spanMs: 7 * 24 * HOUR_MS, stepMs: 3 * HOUR_MS, resolution: HOUR_MS },
}

export interface SeriesTotals {
  readonly requests: number
  readonly clientErrors: number
  readonly serverErrors: number
  readonly authFailures: number
  readonly scopeDenials: number
  readonly rateLimited: number
  /** Upper bound of the latency bucket holding the 95th percentile; null without requests. */
  readonly p95Ms: number | null
  readonly delivered: number
  readonly failedAttempts: number
  readonly deadLettered: number
}

export interface SeriesPoint extends SeriesTotals {
  /** Start of the point's interval. */
  readonly at: string
}

export interface Series {
  readonly range: ChartRange
  /** A credential id; null for the whole site. */
  readonly credentialId: string | null
  readonly from: string
  readonly to: string
  readonly stepSeconds: number
  readonly points: readonly SeriesPoint[]
  readonly totals: SeriesTotals
}

interface Sum {
  counts: Record<Counter, number>
  latency: number[]
}

const emptySum = (): Sum => ({ counts: emptyCounts(), latency: new Array<number>(LATENCY_COLUMNS.length).fill(0) })

/** The bucket whose upper bound the 95th percentile falls under (slower than the last bound: twice it). */
export function p95Of(latency: readonly number[]): number | null {
  const total = latency.reduce((a, b) => a + b, 0)
  if (total === 0) return null
  const rank = Math.ceil(total * 0.95)
  let seen = 0
  for (let i = 0; i < latency.length; i++) {
    seen += latency[i]
    if (seen >= rank) return LATENCY_BOUNDS_MS[i] ?? LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1] * 2
  }
  return null
}

function totalsOf(s: Sum): SeriesTotals {
  const c = s.counts
  return {
    requests: c.requests, clientErrors: c.client_errors, serverErrors: c.server_errors, authFailures: c.auth_failures,
    scopeDenials: c.scope_denials, rateLimited: c.rate_limited, p95Ms: p95Of(s.latency),
    delivered: c.delivered, failedAttempts: c.failed_attempts, deadLettered: c.dead_lettered,
  }
}

function add(into: Sum, row: Record<string, unknown>): void {
  for (const k of COUNTERS) into.counts[k] += Number(row[k] ?? 0)
  LATENCY_COLUMNS.forEach((col, i) => { into.latency[i] += Number(row[col] ?? 0) })
}

/** The chart series of `range` ending now, for one credential or (null) the whole site. */
export async function readSeries(db: Db, q: { range: ChartRange; credentialId?: string | null; now?: number }): Promise<Series> {
  const shape = RANGE_SHAPES[q.range]
  const now = q.now ?? Date.now()
  const end = now - (now % shape.stepMs) + shape.stepMs
  const start = end - shape.spanMs
  let query = db.selectFrom('ops_metric_buckets')
    .select(['bucket_start', ...[...COUNTERS, ...LATENCY_COLUMNS].map((c) => sql<number>`SUM(${sql.ref(c)})`.as(c))])
    .where('resolution_ms', '=', shape.resolution).where('bucket_start', '>=', start).where('bucket_start', '<', end)
  if (q.credentialId) query = query.where('subject', '=', q.credentialId)
  const rows = await query.groupBy('bucket_start').execute()
  const steps = Array.from({ length: Math.round(shape.spanMs / shape.stepMs) }, emptySum)
  const all = emptySum()
  for (const row of rows) {
    const i = Math.floor((Number(row.bucket_start) - start) / shape.stepMs)
    if (i < 0 || i >= steps.length) continue
    add(steps[i], row)
    add(all, row)
  }
  return {
    range: q.range, credentialId: q.credentialId ?? null, from: new Date(start).toISOString(), to: new Date(end).toISOString(),
    stepSeconds: shape.stepMs / 1000,
    points: steps.map((s, i) => ({ at: new Date(start + i * shape.stepMs).toISOString(), ...totalsOf(s) })),
    totals: totalsOf(all),
  }
}

/** Request and refusal totals per credential since `since` (minute rows; the last 26 hours at most). */
export async function totalsBySubject(db: Db, since: number): Promise<Map<string, SeriesTotals>> {
  const rows = await db.selectFrom('ops_metric_buckets')
    .select(['subject', ...[...COUNTERS, ...LATENCY_COLUMNS].map((c) => sql<number>`SUM(${sql.ref(c)})`.as(c))])
    .where('resolution_ms', '=', MINUTE_MS).where('bucket_start', '>=', since - (since % MINUTE_MS))
    .groupBy('subject').execute()
  const out = new Map<string, SeriesTotals>()
  for (const row of rows) {
    const s = emptySum()
    add(s, row)
    out.set(row.subject as string, totalsOf(s))
  }
  return out
}
