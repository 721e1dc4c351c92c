// The delivery queue's SQL: claims with leases, and the outcome of each attempt.
//
// A claim sets a lease (owner, random token, expiry) on due rows and counts the attempt.
// PostgreSQL claims with FOR UPDATE SKIP LOCKED, so concurrent workers never take the same
// row; SQLite runs one writer at a time, so the same UPDATE … RETURNING is atomic there.
// A worker that dies leaves its leases to expire; the rows then become claimable again,
// so an attempt in flight during a crash is retried (at-least-once, same event id).
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { Database, Db } from '../store/database.js'

export interface ClaimedDelivery {
  readonly id: number
  readonly deliveryId: string
  readonly eventId: string
  readonly kind: 'event' | 'test'
  readonly body: string
  /** Attempts including the one just claimed. */
  readonly attempts: number
  readonly leaseToken: string
  /** Who holds the claim (a worker id, or `send-test:…`). */
  readonly workerId: string
  /** The change's position in the feed (null for test deliveries): sent as X-Gatehouse-Position. */
  readonly position?: number | null
}

export interface ClaimOptions {
  readonly workerId: string
  readonly limit: number
  readonly leaseMs: number
  readonly now?: number
}

export async function claimDeliveries(database: Database, opts: ClaimOptions): Promise<ClaimedDelivery[]> {
  const now = opts.now ?? Date.now()
  const token = randomUUID()
  const skipLocked = database.adapter.skipLocked
  const { rows } = await sql<Record<string, unknown>>`
    UPDATE webhook_deliveries
       SET lease_owner = ${opts.workerId}, lease_token = ${token}, lease_until = ${now + opts.leaseMs},
           attempts = attempts + 1, last_attempt_at = ${now}
     WHERE status = 'queued' AND id IN (
       SELECT id FROM webhook_deliveries
        WHERE status = 'queued' AND next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until < ${now})
        ORDER BY next_attempt_at, id
        LIMIT ${opts.limit}
        ${skipLocked})
    RETURNING id, delivery_id, event_id, kind, body, attempts, change_seq`.execute(database.db)
  return rows.map((r) => ({
    id: Number(r.id), deliveryId: r.delivery_id as string, eventId: r.event_id as string,
    kind: r.kind as 'event' | 'test', body: r.body as string, attempts: Number(r.attempts), leaseToken: token, workerId: opts.workerId,
    position: r.change_seq === null || r.change_seq === undefined ? null : Number(r.change_seq),
  })).sort((a, b) => a.id - b.id)
}

/**
 * 2xx answers (one statement for many rows). Recorded whoever holds the lease now: if ours
 * expired and another worker re-claimed the row, the receiver has the event either way,
 * and the other worker's later outcome is ignored because the row is no longer queued.
 * On a delivered row `lease_owner` stays as the worker that delivered it.
 */
export async function markDelivered(db: Db, ids: readonly number[], workerId: string, statusCode: number, now = Date.now()): Promise<void> {
  if (ids.length === 0) return
  await db.updateTable('webhook_deliveries')
    .set({ status: 'delivered', delivered_at: now, last_status_code: statusCode, last_error: null, lease_owner: workerId, lease_token: null, lease_until: null })
    .where('id', 'in', ids).where('status', '=', 'queued').execute()
}

export interface FailedAttempt {
  readonly statusCode: number | null
  readonly error: string
  /** When to try again; null moves the delivery to the dead-letter queue. */
  readonly nextAttemptAt: number | null
  readonly now?: number
}

/** A failed attempt, recorded only while we still hold the lease (fencing by token). */
export async function markAttemptFailed(db: Db, claim: ClaimedDelivery, f: FailedAttempt): Promise<boolean> {
  const now = f.now ?? Date.now()
  const base = { last_status_code: f.statusCode, last_error: f.error.slice(0, 500), lease_owner: null, lease_token: null, lease_until: null }
  const set = f.nextAttemptAt === null
    ? { ...base, status: 'failed', dead_lettered_at: now }
    : { ...base, next_attempt_at: f.nextAttemptAt }
  const res = await db.updateTable('webhook_deliveries').set(set)
    .where('id', '=', claim.id).where('lease_token', '=', claim.leaseToken).where('status', '=', 'queued')
    .executeTakeFirst()
  return Number(res.numUpdatedRows) === 1
}

/** The earliest moment a queued row may become claimable (due time or lease expiry). */
export async function nextClaimableAt(db: Db): Promise<number | null> {
  const row = await db.selectFrom('webhook_deliveries')
    .select(sql<number | null>`MIN(CASE WHEN lease_until IS NOT NULL AND lease_until > next_attempt_at THEN lease_until ELSE next_attempt_at END)`.as('at'))
    .where('status', '=', 'queued').executeTakeFirst()
  return row?.at === null || row?.at === undefined ? null : Number(row.at)
}

/** Deletes delivered rows older than `before`; dead letters stay until replayed. */
export async function pruneDelivered(db: Db, before: number): Promise<number> {
  const res = await db.deleteFrom('webhook_deliveries').where('status', '=', 'delivered').where('delivered_at', '<', before).executeTakeFirst()
  return Number(res.numDeletedRows ?? 0)
}
