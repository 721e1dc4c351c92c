// A page of the change feed with its snapshots in one statement: the change log walked in
// sequence order (its primary key), and for each change the current document of its record
// by id (a primary-key lookup per row), with the caller's visibility conditions evaluated in
// the same lookup. No document is parsed; a page costs one query however many types it has.
import type { Resource } from '../resources/declare.js'
import type { ChangeAction, ChangePageQuery, ChangeRow } from './change-log.js'
import type { Database } from './database.js'
import { ReadStatement, sqlLiteral, sqlName } from './read-statement.js'
import { conditionsSql, type Condition } from './record-conditions.js'

/** How one change type is read for this caller. */
export interface FeedFamily {
  readonly resource: Resource
  readonly withSensitive: boolean
  /** Conditions the record must meet for the caller to see it (empty: always visible). */
  readonly visible: readonly Condition[]
  /**
   * A read boundary (a bounded workflow's open run): only changes of records meeting
   * `conditions` now, and deletes of `deletedIds`, are in the page.
   */
  readonly boundary?: { readonly conditions: readonly Condition[]; readonly deletedIds: readonly number[] }
}

export interface ChangePageRow extends ChangeRow {
  /**
   * The record's current public document; null when the change is a delete or the record is
   * gone, `''` when the record exists but the caller may not see it.
   */
  readonly doc: string | null
  readonly sensitive: string | null
}

/** Changes after `q.afterSeq` of the types in `families`, with snapshots. */
export async function readChangePage(database: Database, q: ChangePageQuery, families: readonly FeedFamily[]): Promise<ChangePageRow[]> {
  if (families.length === 0) return []
  const st = new ReadStatement(database.adapter)
  const a = st.adapter
  // One scalar subquery per type, chosen by the row's type: an index lookup by id.
  const lookup = (column: 'doc' | 'sensitive', f: FeedFamily) => {
    const text = a.docSql(`t.${column}`)
    const value = f.visible.length === 0 ? text : `CASE WHEN ${conditionsSql(st, f.resource, 't', f.visible)} THEN ${text} ELSE '' END`
    return `WHEN ${sqlLiteral(f.resource.changeType)} THEN (SELECT ${value} FROM ${sqlName(f.resource.table)} t WHERE t.id = c.resource_id)`
  }
  const snapshot = (column: 'doc' | 'sensitive', of: readonly FeedFamily[]) =>
    of.length === 0 ? 'NULL' : `CASE WHEN c.action = 'deleted' THEN NULL ELSE CASE c.resource_type ${of.map((f) => lookup(column, f)).join(' ')} END END`
  const docs = snapshot('doc', families)
  const sensitive = snapshot('sensitive', families.filter((f) => f.withSensitive && f.resource.sensitiveKeys.length > 0))
  // The page of each type by its (type, seq) index, at most `limit` rows each, then merged:
  // one `resource_type IN (…) ORDER BY seq` would make SQLite read every later change of
  // each type and sort them all, a cost that grows with the log, not with the page.
  const branches = families.map((f, i) => `SELECT * FROM (${typePage(st, q, f)}) p${i}`)
  st.text = `SELECT c.seq, c.resource_type, c.resource_id, c.action, c.occurred_at, c.updated_at, ${docs}, ${sensitive}`
  st.text += ` FROM (${branches.join(' UNION ALL ')}) c ORDER BY c.seq LIMIT ${Math.trunc(q.limit)}`
  const rows = await database.read(st.text, st.params, { prepare: st.prepare })
  return rows.map((r) => ({
    seq: Number(r[0]),
    resourceType: r[1] as string,
    resourceId: Number(r[2]),
    action: r[3] as ChangeAction,
    occurredAt: Number(r[4]),
    updatedAt: Number(r[5]),
    doc: (r[6] as string | null) ?? null,
    sensitive: (r[7] as string | null) ?? null,
  }))
}

/** One type's changes after the position, in sequence order, as many as a page can hold. */
function typePage(st: ReadStatement, q: ChangePageQuery, f: FeedFamily): string {
  let text = `SELECT c.seq, c.resource_type, c.resource_id, c.action, c.occurred_at, c.updated_at FROM change_log c`
  text += ` WHERE ${st.adapter.changesOfTypeAfter('c', sqlLiteral(f.resource.changeType), st.param(q.afterSeq))}`
  if (q.updatedSince !== undefined) text += ` AND c.updated_at >= ${st.param(q.updatedSince)}`
  if (q.action !== undefined) text += ` AND c.action = ${st.param(q.action)}`
  if (f.boundary) {
    // A workflow's read boundary: records inside it now, and deletes of the ids it names.
    st.prepare = false
    const inside = `EXISTS (SELECT 1 FROM ${sqlName(f.resource.table)} t WHERE t.id = c.resource_id AND ${conditionsSql(st, f.resource, 't', f.boundary.conditions)})`
    const deleted = f.boundary.deletedIds.length > 0 ? ` OR (c.action = 'deleted' AND c.resource_id IN (${f.boundary.deletedIds.map((id) => st.param(id)).join(', ')}))` : ''
    text += ` AND (${inside}${deleted})`
  }
  return `${text} ORDER BY c.resource_type, c.seq LIMIT ${Math.trunc(q.limit)}`
}
