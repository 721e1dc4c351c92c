// The change log: every write appends {seq, resourceType, resourceId, action, occurredAt,
// updatedAt} in the write's own transaction.
//
// Commit order: on PostgreSQL a sequence hands out numbers at insert time, not at commit,
// so a reader could see seq 11 committed while seq 10 is still in flight and skip 10 for
// ever. Appends therefore take a transaction-scoped advisory lock just before inserting
// (the last step of every write transaction), so numbers are assigned and committed in
// the same order. SQLite has one writer at a time and needs nothing.
import type { Resource } from '../resources/index.js'
import type { Db, DialectAdapter } from './database.js'
import { setMeta } from './meta.js'
import { PRUNE_PAYLOAD } from './change-signal.js'
import type { ChangeOrigin } from './change-origin.js'

export type ChangeAction = 'created' | 'updated' | 'deleted'

/** One change a write transaction made, as the change log and its hooks see it. */
export interface ChangeEvent {
  readonly resource: Resource
  readonly resourceId: number
  readonly action: ChangeAction
  readonly occurredAt: number
  readonly updatedAt: number
  /** The public document after the change; null for deletes. */
  readonly doc: Record<string, unknown> | null
  /** Sequence number in the change log, set once appended: the change's position. */
  seq?: number
  /** Who caused it (set by the writer before appending; the service itself when unset). */
  origin?: ChangeOrigin
}

export const CHANGE_LOG_LOCK = 7270002

export interface ChangeRow {
  readonly seq: number
  readonly resourceType: string
  readonly resourceId: number
  readonly action: ChangeAction
  readonly occurredAt: number
  readonly updatedAt: number
}

export interface AppendOptions {
  /** Test-only: `false` leaves out the commit-order lock (see ContentStoreOptions). */
  readonly commitOrderLock?: boolean
}

export async function appendChanges(tx: Db, adapter: DialectAdapter, events: ChangeEvent[], opts: AppendOptions = {}): Promise<void> {
  if (opts.commitOrderLock !== false) await adapter.transactionLock(tx, CHANGE_LOG_LOCK)
  const batch = 5000
  for (let start = 0; start < events.length; start += batch) {
    const slice = events.slice(start, start + batch)
    const rows = await tx.insertInto('change_log').values(slice.map((e) => ({
      resource_type: e.resource.changeType,
      resource_id: e.resourceId,
      action: e.action,
      occurred_at: e.occurredAt,
      updated_at: e.updatedAt,
      origin_kind: e.origin?.kind ?? 'system',
      origin_credential: e.origin?.credentialId ?? null,
      origin_ref: e.origin?.ref ?? null,
    }))).returning('seq').execute()
    rows.forEach((row, i) => { slice[i].seq = Number(row.seq) })
  }
}

export interface ChangePageQuery {
  readonly afterSeq: number
  readonly types?: readonly string[]
  readonly updatedSince?: number
  readonly action?: string
  readonly limit: number
}

/** Changes after `afterSeq` in sequence order. */
export async function readChanges(db: Db, q: ChangePageQuery): Promise<ChangeRow[]> {
  let query = db.selectFrom('change_log')
    .select(['seq', 'resource_type', 'resource_id', 'action', 'occurred_at', 'updated_at'])
    .where('seq', '>', q.afterSeq)
  if (q.types && q.types.length > 0) query = query.where('resource_type', 'in', q.types)
  if (q.updatedSince !== undefined) query = query.where('updated_at', '>=', q.updatedSince)
  if (q.action !== undefined) query = query.where('action', '=', q.action)
  const rows = await query.orderBy('seq').limit(q.limit).execute()
  return rows.map((r) => ({
    seq: Number(r.seq),
    resourceType: r.resource_type as string,
    resourceId: Number(r.resource_id),
    action: r.action as ChangeAction,
    occurredAt: Number(r.occurred_at),
    updatedAt: Number(r.updated_at),
  }))
}

/** The oldest retained sequence number (0 when the log is empty). */
export async function oldestRetainedSeq(db: Db): Promise<number> {
  const row = await db.selectFrom('change_log').select((eb) => eb.fn.min('seq').as('min')).executeTakeFirst()
  return Number(row?.min ?? 0)
}

/** Meta key holding the highest sequence number pruning removed (cursors before it are expired). */
export const PRUNED_THROUGH_KEY = 'changes_pruned_through'

/**
 * Deletes entries older than the retention window and records how far it went. With the
 * adapter, other processes are told (their cached change-feed pages answer differently now).
 */
export async function pruneChanges(db: Db, retentionDays: number, now = Date.now(), adapter?: DialectAdapter): Promise<number> {
  const cutoff = now - retentionDays * 86_400_000
  return db.transaction().execute(async (trx) => {
    // The log up to its newest change older than the window, found by the occurred_at index.
    // (`max(seq) WHERE occurred_at < ?` walked the primary key down from the newest change
    // to the first old one: the whole log when nothing was old, as at every start-up.)
    const top = await trx.selectFrom('change_log').select('seq')
      .where('occurred_at', '<', cutoff).orderBy('occurred_at', 'desc').orderBy('seq', 'desc').limit(1).executeTakeFirst()
    if (top === undefined) return 0
    const res = await trx.deleteFrom('change_log').where('seq', '<=', Number(top.seq)).executeTakeFirst()
    await setMeta(trx, PRUNED_THROUGH_KEY, String(top.seq))
    await adapter?.notifyChange(trx, PRUNE_PAYLOAD)
    return Number(res.numDeletedRows ?? 0)
  })
}

export interface ChangeLogStats {
  readonly entries: number
  readonly oldestAt: number | null
  readonly newestAt: number | null
}

/** Size and time span of the change log (diagnostics). */
export async function changeLogStats(db: Db): Promise<ChangeLogStats> {
  const row = await db.selectFrom('change_log').select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('occurred_at').as('oldest'), eb.fn.max('occurred_at').as('newest')]).executeTakeFirst()
  const ms = (v: unknown) => (v === null || v === undefined ? null : Number(v))
  return { entries: Number(row?.n ?? 0), oldestAt: ms(row?.oldest), newestAt: ms(row?.newest) }
}
