// The append-only audit log. Each record's hash is SHA-256 over the previous record's hash
// followed by the canonical JSON of the record, so editing a record breaks its own hash and
// deleting one breaks the link of the next. A head row (last sequence number and hash) is
// updated with every append; it catches deleting the newest records, and taking its row
// lock first is what serialises appends on both engines, so the chain never forks.
import type { Db } from '../store/database.js'
import { AUDIT_GENESIS_HASH } from '../store/migrations/008-control-plane.js'
import { canonicalJson, sha256Hex } from './canonical-json.js'
import type { Actor } from './actor.js'

export const AUDIT_CATEGORIES = ['policy', 'approval', 'execution', 'credential', 'webhook', 'job', 'oauth'] as const
export type AuditCategory = typeof AUDIT_CATEGORIES[number]
export type AuditOutcome = 'success' | 'failure' | 'blocked' | 'denied'

export interface AuditEntity {
  readonly type: string
  readonly id: string
}

export interface AuditInput {
  readonly category: AuditCategory
  readonly action: string
  readonly outcome: AuditOutcome
  readonly actor: Actor
  readonly requestId?: string | null
  readonly entity?: AuditEntity | null
  readonly summary: string
  readonly metadata?: Readonly<Record<string, unknown>>
}

export interface AuditRecord {
  readonly id: number
  readonly at: string
  readonly category: string
  readonly action: string
  readonly outcome: string
  readonly actor: Actor
  readonly requestId: string | null
  readonly entity: AuditEntity | null
  readonly summary: string
  readonly metadata: Record<string, unknown>
  readonly prevHash: string
  readonly hash: string
}

/** The hash of a record: SHA-256 over prevHash + the canonical record (without its hashes). */
export function auditHash(record: Omit<AuditRecord, 'hash'>): string {
  const { prevHash, ...content } = record
  return sha256Hex(prevHash + canonicalJson(content))
}

type Row = Record<string, unknown>

export function auditFromRow(row: Row): AuditRecord {
  return {
    id: Number(row.id),
    at: new Date(Number(row.at)).toISOString(),
    category: row.category as string,
    action: row.action as string,
    outcome: row.outcome as string,
    actor: { type: row.actor_type as Actor['type'], id: row.actor_id as string },
    requestId: (row.request_id as string | null) ?? null,
    entity: row.entity_type === null || row.entity_type === undefined ? null : { type: row.entity_type as string, id: row.entity_id as string },
    summary: row.summary as string,
    metadata: JSON.parse(row.metadata as string) as Record<string, unknown>,
    prevHash: row.prev_hash as string,
    hash: row.hash as string,
  }
}

/**
 * Appends one record inside the caller's transaction `tx`, so it commits (or rolls back)
 * with what it records.
 */
export async function appendAudit(tx: Db, input: AuditInput, now = Date.now()): Promise<AuditRecord> {
  // Claims the next number and the previous hash in one statement that also takes the head
  // row's write lock: a concurrent append waits here until this transaction ends.
  const head = await tx.updateTable('control_audit_head').set((eb) => ({ seq: eb('seq', '+', 1) }))
    .where('id', '=', 1).returning(['seq', 'hash']).executeTakeFirstOrThrow()
  const content: Omit<AuditRecord, 'hash'> = {
    id: Number(head.seq),
    at: new Date(now).toISOString(),
    category: input.category,
    action: input.action,
    outcome: input.outcome,
    actor: { type: input.actor.type, id: input.actor.id },
    requestId: input.requestId ?? null,
    entity: input.entity ? { type: input.entity.type, id: input.entity.id } : null,
    summary: input.summary,
    // Parsed back from its text, as verification will see it (drops undefined members).
    metadata: JSON.parse(JSON.stringify(input.metadata ?? {})) as Record<string, unknown>,
    prevHash: head.hash as string,
  }
  const record: AuditRecord = { ...content, hash: auditHash(content) }
  await tx.insertInto('control_audit').values({
    id: record.id, at: now, category: record.category, action: record.action, outcome: record.outcome,
    actor_type: record.actor.type, actor_id: record.actor.id, request_id: record.requestId,
    entity_type: record.entity?.type ?? null, entity_id: record.entity?.id ?? null,
    summary: record.summary, metadata: JSON.stringify(record.metadata), prev_hash: record.prevHash, hash: record.hash,
  }).execute()
  await tx.updateTable('control_audit_head').set({ hash: record.hash }).where('id', '=', 1).execute()
  return record
}

export interface AuditQuery {
  readonly afterId?: number
  readonly category?: string
  readonly action?: string
  readonly outcome?: string
  readonly actorId?: string
  readonly entityType?: string
  readonly entityId?: string
  readonly since?: number
  readonly limit: number
}

/** Records in append order after `afterId`; one extra is read to tell whether more follow. */
export async function listAudit(db: Db, q: AuditQuery): Promise<{ items: AuditRecord[]; hasMore: boolean }> {
  let query = db.selectFrom('control_audit').selectAll().where('id', '>', q.afterId ?? 0)
  if (q.category !== undefined) query = query.where('category', '=', q.category)
  if (q.action !== undefined) query = query.where('action', '=', q.action)
  if (q.outcome !== undefined) query = query.where('outcome', '=', q.outcome)
  if (q.actorId !== undefined) query = query.where('actor_id', '=', q.actorId)
  if (q.entityType !== undefined) query = query.where('entity_type', '=', q.entityType)
  if (q.entityId !== undefined) query = query.where('entity_id', '=', q.entityId)
  if (q.since !== undefined) query = query.where('at', '>=', q.since)
  const rows = await query.orderBy('id').limit(q.limit + 1).execute()
  return { items: rows.slice(0, q.limit).map(auditFromRow), hasMore: rows.length > q.limit }
}

export interface AuditVerification {
  readonly ok: boolean
  /** Records whose link and hash were checked. */
  readonly checked: number
  readonly lastId: number
  readonly headSeq: number
  /** The first broken link: the record where the chain stops holding, and why. */
  readonly brokenAt: { readonly id: number; readonly problem: string } | null
}

/** Walks the whole chain in append order and reports the first broken link. */
export async function verifyAudit(db: Db, batch = 1000): Promise<AuditVerification> {
  const head = await db.selectFrom('control_audit_head').select(['seq', 'hash']).where('id', '=', 1).executeTakeFirstOrThrow()
  const headSeq = Number(head.seq)
  let prevHash = AUDIT_GENESIS_HASH
  let expected = 1
  let checked = 0
  const broken = (id: number, problem: string): AuditVerification => ({ ok: false, checked, lastId: expected - 1, headSeq, brokenAt: { id, problem } })
  // Only the records the head read covers: others are appended while the walk goes on, each
  // with its head in its own transaction (walked to the end, the chain ran past the head read
  // first and was called broken under ordinary writes).
  for (;;) {
    const rows = await db.selectFrom('control_audit').selectAll().where('id', '>=', expected).where('id', '<=', headSeq).orderBy('id').limit(batch).execute()
    if (rows.length === 0) break
    for (const row of rows) {
      const record = auditFromRow(row)
      if (record.id !== expected) return broken(expected, `record ${expected} is missing (deleted); the next one is ${record.id}`)
      if (record.prevHash !== prevHash) return broken(record.id, 'prevHash does not match the hash of the record before it')
      const { hash, ...content } = record
      if (auditHash(content) !== hash) return broken(record.id, 'the record does not match its hash (edited)')
      prevHash = hash
      expected++
      checked++
    }
  }
  const lastId = expected - 1
  if (headSeq > lastId) return broken(lastId + 1, `records ${lastId + 1}..${headSeq} are missing (deleted); the head says ${headSeq} were written`)
  if (head.hash !== prevHash) return broken(lastId, 'the newest record does not match the hash kept in the head')
  // A record past the head now that no head covers: inserted around the log. Read in this
  // order, every record appended through the log is covered (its head commits with it).
  const newest = Number((await db.selectFrom('control_audit').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0)
  const nowHead = Number((await db.selectFrom('control_audit_head').select('seq').where('id', '=', 1).executeTakeFirstOrThrow()).seq)
  if (newest > nowHead) return broken(nowHead + 1, `records after ${nowHead} were not appended through the log (the head says ${nowHead})`)
  return { ok: true, checked, lastId, headSeq, brokenAt: null }
}
