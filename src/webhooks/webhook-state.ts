// What the operations surfaces need from the webhook tables (migration 003, owned here): queue depth
// and age, dead letters, recent outcomes and worker heartbeats. Read from the database, not
// from a worker object, because workers may run in other processes (`gatehouse worker`).
// A store without those tables (an older schema) reads as empty rather than failing.
import { sql } from 'kysely'
import type { Database } from '../store/database.js'

export interface WorkerHeartbeat {
  readonly workerId: string
  readonly heartbeatAgeSeconds: number
  /** Deliveries this worker delivered and dead-lettered since it started. */
  readonly delivered: number
  readonly deadLettered: number
}

export interface WebhookState {
  /** False when the webhook tables do not exist. */
  readonly available: boolean
  readonly queued: number
  readonly oldestQueuedAgeSeconds: number | null
  /** Dead letters waiting for replay (status failed). */
  readonly dlqSize: number
  /** Rows kept in the delivery table by status (delivered rows are pruned after a week). */
  readonly byStatus: Readonly<Record<'queued' | 'delivered' | 'failed', number>>
  /** Within the window: deliveries that succeeded, had a failed attempt, or were dead-lettered. */
  readonly window: { readonly delivered: number; readonly failedAttempts: number; readonly deadLettered: number }
  readonly workers: readonly WorkerHeartbeat[]
}

export const EMPTY_WEBHOOK_STATE: WebhookState = Object.freeze({
  available: false, queued: 0, oldestQueuedAgeSeconds: null, dlqSize: 0,
  byStatus: { queued: 0, delivered: 0, failed: 0 }, window: { delivered: 0, failedAttempts: 0, deadLettered: 0 }, workers: [],
})

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v))

export async function readWebhookState(database: Database, windowMs: number, now = Date.now()): Promise<WebhookState> {
  const { db } = database
  try {
    const since = now - windowMs
    const status = await db.selectFrom('webhook_deliveries').select(['status', (eb) => eb.fn.countAll().as('n')]).groupBy('status').execute()
    const of = (s: string) => num(status.find((r) => r.status === s)?.n)
    // A replayed dead letter waits since its replay, not since the original event.
    const oldest = await db.selectFrom('webhook_deliveries')
      .select(sql<number | null>`MIN(CASE WHEN replayed_at IS NOT NULL THEN replayed_at ELSE created_at END)`.as('at'))
      .where('status', '=', 'queued').executeTakeFirst()
    const dlq = await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'failed').where('dead_lettered_at', 'is not', null).executeTakeFirst()
    const recent = await db.selectFrom('webhook_deliveries').select([
      sql<number>`SUM(CASE WHEN delivered_at >= ${since} THEN 1 ELSE 0 END)`.as('delivered'),
      sql<number>`SUM(CASE WHEN last_error IS NOT NULL AND last_attempt_at >= ${since} THEN 1 ELSE 0 END)`.as('failed'),
      sql<number>`SUM(CASE WHEN dead_lettered_at >= ${since} AND status = 'failed' THEN 1 ELSE 0 END)`.as('dead'),
    ]).where((eb) => eb.or([eb('delivered_at', '>=', since), eb('last_attempt_at', '>=', since), eb('dead_lettered_at', '>=', since)]))
      .executeTakeFirst()
    const workers = await db.selectFrom('webhook_workers').select(['worker_id', 'heartbeat_at', 'delivered', 'failed'])
      .orderBy('heartbeat_at', 'desc').limit(50).execute()
    const oldestAt = oldest?.at === null || oldest?.at === undefined ? null : Number(oldest.at)
    return {
      available: true,
      queued: of('queued'),
      oldestQueuedAgeSeconds: oldestAt === null ? null : Math.max(0, (now - oldestAt) / 1000),
      dlqSize: num(dlq?.n),
      byStatus: { queued: of('queued'), delivered: of('delivered'), failed: of('failed') },
      window: { delivered: num(recent?.delivered), failedAttempts: num(recent?.failed), deadLettered: num(recent?.dead) },
      workers: workers.map((w) => ({
        workerId: w.worker_id as string,
        heartbeatAgeSeconds: Math.max(0, (now - Number(w.heartbeat_at)) / 1000),
        delivered: num(w.delivered),
        deadLettered: num(w.failed),
      })),
    }
  } catch (err) {
    if (database.adapter.isMissingTable(err)) return EMPTY_WEBHOOK_STATE
    throw err
  }
}
