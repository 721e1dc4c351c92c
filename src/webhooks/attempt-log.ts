// The delivery log's attempts: one row per attempt with its status code, latency, outcome,
// the headers sent (signatures included; the secret never leaves the signer) and the first
// kilobyte of the answer. The worker adds them through an AttemptLog, which writes one
// multi-row INSERT per batch like DeliveredBatcher, so the history costs the delivery path
// a fraction of a statement per attempt. The history is for people: a batch that cannot be
// written is logged and dropped, never retried at the delivery's expense.
import type { Logger } from 'pino'
import type { Db } from '../store/database.js'
import type { AnswerExcerpt } from './transport.js'

export type AttemptOutcomeStatus = 'delivered' | 'retrying' | 'failed'

export interface AttemptEntry {
  /** webhook_deliveries.id */
  readonly deliveryRowId: number
  /** 1 for the first attempt (counted again from 1 after a replay). */
  readonly attempt: number
  readonly attemptedAt: number
  readonly durationMs: number
  readonly statusCode: number | null
  readonly outcome: AttemptOutcomeStatus
  readonly error: string | null
  readonly headers: Readonly<Record<string, string>>
  readonly answer: Promise<AnswerExcerpt | null>
  readonly workerId: string
}

export interface DeliveryAttempt {
  readonly attempt: number
  readonly attemptedAt: string
  readonly durationMs: number
  readonly statusCode: number | null
  readonly outcome: AttemptOutcomeStatus
  readonly error: string | null
  readonly requestHeaders: Readonly<Record<string, string>>
  /** The first kilobyte of the answer's body; null without an answer. */
  readonly responseExcerpt: string | null
  readonly responseBytes: number | null
  readonly workerId: string
}

const ROWS_PER_STATEMENT = 500

async function toRow(e: AttemptEntry) {
  const a = await e.answer.catch(() => null)
  return {
    delivery_row_id: e.deliveryRowId, attempt: e.attempt, attempted_at: e.attemptedAt, duration_ms: e.durationMs,
    status_code: e.statusCode, outcome: e.outcome, error: e.error === null ? null : e.error.slice(0, 500),
    request_headers: JSON.stringify(e.headers), response_excerpt: a ? a.excerpt : null, response_bytes: a ? a.bytes : null,
    worker_id: e.workerId.slice(0, 200),
  }
}

/** Writes attempts now (send-test and other one-off attempts). */
export async function insertAttempts(db: Db, entries: readonly AttemptEntry[]): Promise<void> {
  const rows = await Promise.all(entries.map(toRow))
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await db.insertInto('webhook_attempts').values(rows.slice(i, i + ROWS_PER_STATEMENT)).execute()
  }
}

/** Collects attempts (once their answers are read) and writes them in batches. */
export class AttemptLog {
  private ready: AttemptEntry[] = []
  private readonly reading = new Set<Promise<void>>()
  private timer: NodeJS.Timeout | undefined
  private flushing: Promise<void> = Promise.resolve()

  constructor(private readonly db: Db, private readonly logger: Logger, private readonly maxBatch = 128, private readonly maxDelayMs = 50) {}

  add(entry: AttemptEntry): void {
    // The answer's excerpt arrives after the outcome; the entry waits for it here, not in the worker.
    const p = entry.answer.catch(() => null).then(() => {
      this.reading.delete(p)
      this.ready.push(entry)
      if (this.ready.length >= this.maxBatch) void this.flush()
      else this.timer ??= setTimeout(() => void this.flush(), this.maxDelayMs)
    })
    this.reading.add(p)
  }

  /** Writes what is ready; `all` also waits for answers still being read (at stop). */
  async flush(all = false): Promise<void> {
    if (all) await Promise.all([...this.reading])
    clearTimeout(this.timer)
    this.timer = undefined
    const batch = this.ready
    this.ready = []
    this.flushing = this.flushing.then(async () => {
      if (batch.length === 0) return
      try {
        await insertAttempts(this.db, batch)
      } catch (err) {
        this.logger.warn({ err, count: batch.length }, 'could not record webhook delivery attempts')
      }
    })
    return this.flushing
  }
}

/** A delivery's attempts, oldest first. */
export async function listAttempts(db: Db, deliveryRowId: number): Promise<DeliveryAttempt[]> {
  const rows = await db.selectFrom('webhook_attempts').selectAll().where('delivery_row_id', '=', deliveryRowId).orderBy('id').execute()
  return rows.map((r) => ({
    attempt: Number(r.attempt),
    attemptedAt: new Date(Number(r.attempted_at)).toISOString(),
    durationMs: Number(r.duration_ms),
    statusCode: r.status_code === null ? null : Number(r.status_code),
    outcome: r.outcome as AttemptOutcomeStatus,
    error: (r.error as string | null) ?? null,
    requestHeaders: JSON.parse(r.request_headers as string) as Record<string, string>,
    responseExcerpt: (r.response_excerpt as string | null) ?? null,
    responseBytes: r.response_bytes === null ? null : Number(r.response_bytes),
    workerId: r.worker_id as string,
  }))
}

/** Deletes attempts older than `before`, except those of deliveries still queued or dead-lettered. */
export async function pruneAttempts(db: Db, before: number): Promise<number> {
  const res = await db.deleteFrom('webhook_attempts').where('attempted_at', '<', before)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('webhook_deliveries as d').select('d.id')
      .whereRef('d.id', '=', 'webhook_attempts.delivery_row_id').where('d.status', '!=', 'delivered'))))
    .executeTakeFirst()
  return Number(res.numDeletedRows ?? 0)
}
