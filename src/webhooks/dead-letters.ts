// The dead-letter queue: deliveries that exhausted their attempts (`failed`), and those
// replayed and waiting for delivery again (`queued`). A replayed item that is delivered
// leaves the queue; one that fails again returns to `failed`. The machine API, the admin
// API, the panel and the CLI all replay through WebhookService.replay, which runs these in
// a transaction with the replay's audit record (hence `db`, which may be that transaction).
import { sql } from 'kysely'
import type { Database, Db } from '../store/database.js'
import { notFound } from '../kernel/errors.js'

export type DeadLetterStatus = 'failed' | 'queued'

/** What every view of a delivery row shows (the dead-letter queue, the delivery log). */
export interface DeliveryRecord {
  readonly id: number
  readonly deliveryId: string
  readonly eventId: string
  readonly kind: 'event' | 'test'
  readonly resourceType: string | null
  readonly resourceId: number | null
  readonly attempts: number
  readonly lastStatusCode: number | null
  readonly lastError: string | null
  readonly routingMode: string
  readonly matchedCredentials: readonly string[]
  readonly createdAt: string
  readonly lastAttemptAt: string | null
  readonly nextAttemptAt: string | null
  readonly replayCount: number
  readonly replayedAt: string | null
}

export interface DeadLetter extends DeliveryRecord {
  readonly status: DeadLetterStatus
  readonly action: string | null
  readonly deadLetteredAt: string
}

export interface DeadLetterQuery {
  readonly status?: DeadLetterStatus
  readonly limit: number
  /** Items with a larger id (keyset pagination, oldest first). */
  readonly afterId?: number
}

export interface ReplayResult {
  readonly replayed: number
  /** single: one id; all: the oldest failed ones; filter: what a delivery-log filter selects. */
  readonly mode: 'single' | 'all' | 'filter'
  readonly ids: readonly number[]
}

const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString())

function toDeadLetter(r: Record<string, unknown>): DeadLetter {
  const status = r.status as DeadLetterStatus
  return {
    id: Number(r.id), deliveryId: r.delivery_id as string, eventId: r.event_id as string, kind: r.kind as 'event' | 'test', status,
    resourceType: (r.resource_type as string | null) ?? null, resourceId: r.resource_id === null ? null : Number(r.resource_id),
    action: (r.action as string | null) ?? null, attempts: Number(r.attempts),
    lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code), lastError: (r.last_error as string | null) ?? null,
    routingMode: r.routing_mode as string, matchedCredentials: JSON.parse(r.matched_credentials as string) as string[],
    createdAt: iso(r.created_at) as string, lastAttemptAt: iso(r.last_attempt_at), deadLetteredAt: iso(r.dead_lettered_at) as string,
    replayCount: Number(r.replay_count), replayedAt: iso(r.replayed_at), nextAttemptAt: status === 'queued' ? iso(r.next_attempt_at) : null,
  }
}

const COLUMNS = ['id', 'delivery_id', 'event_id', 'kind', 'status', 'resource_type', 'resource_id', 'action', 'attempts', 'last_status_code',
  'last_error', 'routing_mode', 'matched_credentials', 'created_at', 'last_attempt_at', 'dead_lettered_at', 'replay_count', 'replayed_at',
  'next_attempt_at'] as const

/** Items oldest first; `hasMore` when another page follows. */
export async function listDeadLetters(database: Database, q: DeadLetterQuery): Promise<{ items: DeadLetter[]; hasMore: boolean }> {
  let query = database.db.selectFrom('webhook_deliveries').select([...COLUMNS])
    .where('dead_lettered_at', 'is not', null)
    .where('status', 'in', q.status ? [q.status] : ['failed', 'queued'])
  if (q.afterId !== undefined) query = query.where('id', '>', q.afterId)
  const rows = await query.orderBy('id').limit(q.limit + 1).execute()
  return { items: rows.slice(0, q.limit).map(toDeadLetter), hasMore: rows.length > q.limit }
}

/** One dead letter with its stored payload (admin inspection). */
export async function showDeadLetter(database: Database, id: number): Promise<DeadLetter & { payload: unknown }> {
  const row = await database.db.selectFrom('webhook_deliveries').select([...COLUMNS, 'body'])
    .where('id', '=', id).where('dead_lettered_at', 'is not', null).where('status', 'in', ['failed', 'queued']).executeTakeFirst()
  if (!row) throw notFound(`No dead-letter item with id ${id}`)
  return { ...toDeadLetter(row), payload: JSON.parse(row.body as string) }
}

const requeue = (now: number) => ({
  status: 'queued', attempts: 0, next_attempt_at: now, lease_owner: null, lease_token: null, lease_until: null,
  replay_count: sql`replay_count + 1`, replayed_at: now,
})

/**
 * Puts one item back in the queue with fresh attempts. Unknown ids and deliveries that are
 * not dead letters are a 404; an item already queued by an earlier replay is left as it is
 * (replayed 0), so retrying a replay request is harmless.
 */
export async function replayOne(db: Db, id: number, now = Date.now()): Promise<ReplayResult> {
  const row = await db.selectFrom('webhook_deliveries').select(['status'])
    .where('id', '=', id).where('dead_lettered_at', 'is not', null).where('status', 'in', ['failed', 'queued']).executeTakeFirst()
  if (!row) throw notFound(`No dead-letter item with id ${id}`)
  const res = await db.updateTable('webhook_deliveries').set(requeue(now))
    .where('id', '=', id).where('status', '=', 'failed').executeTakeFirst()
  const replayed = Number(res.numUpdatedRows)
  return { replayed, mode: 'single', ids: replayed === 1 ? [id] : [] }
}

/** Replays up to `limit` failed items, oldest first. */
export async function replayAll(db: Db, limit: number, now = Date.now()): Promise<ReplayResult> {
  // The outer status check makes two concurrent replays on PostgreSQL take each item once.
  const { rows } = await sql<{ id: number }>`
    UPDATE webhook_deliveries
       SET status = 'queued', attempts = 0, next_attempt_at = ${now}, lease_owner = NULL, lease_token = NULL, lease_until = NULL,
           replay_count = replay_count + 1, replayed_at = ${now}
     WHERE status = 'failed' AND id IN (
       SELECT id FROM webhook_deliveries WHERE status = 'failed' AND dead_lettered_at IS NOT NULL ORDER BY id LIMIT ${limit})
    RETURNING id`.execute(db)
  const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b)
  return { replayed: ids.length, mode: 'all', ids }
}
