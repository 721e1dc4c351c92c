// A page of the change feed with its snapshots in one statement: the page of the change log
// (its (type, seq) index, in sequence order), then for each of its changes the current
// document of its record by id (a primary-key lookup per row), with the caller's visibility
// conditions evaluated in the same lookup. No document is parsed; a page costs one query
// however many types it has.
import type { Resource } from '../resources/declare.js'
import { PRUNED_THROUGH_KEY, type ChangeAction, type ChangePageQuery, type ChangeRow } from './change-log.js'
import type { Database } from './database.js'
import type { DialectAdapter } from './dialects/dialect-adapter.js'
import { ReadStatement, readRows } from './read-statement.js'
import { EMPTY, frag, join, param, raw, type Fragment } from './sql-fragment.js'
import { sqlLiteral, sqlName } from './sql-quote.js'
import { conditionsSql, type Condition } from './record-conditions.js'

/** How one change type is read for this caller. */
export interface FeedFamily {
  readonly resource: Resource
  readonly withSensitive: boolean
  /**
   * Conditions the record must meet for the caller to see it now (empty: always visible); the
   * changes of a record that exists and does not meet them are shown as deletes.
   */
  readonly visible: readonly Condition[]
  /** A `filter` on the snapshot: the record must meet these now (deletes always pass). */
  readonly filter?: readonly Condition[]
}

/** A feed page's query: the log's own conditions, and who reads it. */
export interface FeedPageQuery extends ChangePageQuery {
  /** The reader's credential: its own changes show their origin whole (change-origin.ts). */
  readonly viewer?: string
  /** Only changes of these origin kinds. */
  readonly origins?: readonly string[]
  /** Leave out changes made by or for this credential (a two-way sync's own writes). */
  readonly excludeCredential?: string
  /** Read no change past this position: a filtered page scans a bounded range of the log. */
  readonly upTo?: number
}

export interface ChangePageRow extends ChangeRow {
  /**
   * The record's current public document; null when the change is a delete or the record is
   * gone, `''` when the record exists but the caller may not see it.
   */
  readonly doc: string | null
  readonly sensitive: string | null
  readonly originKind: string
  readonly originCredential: string | null
  readonly originRef: string | null
}

/** Changes after `q.afterSeq` of the types in `families`, with snapshots. */
export async function readChangePage(database: Database, q: FeedPageQuery, families: readonly FeedFamily[]): Promise<ChangePageRow[]> {
  if (families.length === 0) return []
  const st = new ReadStatement(database.adapter)
  const page = pageStatement(st, q, families)
  const rows = await readRows(database, frag`WITH ${page.with} ${page.select} ORDER BY c.seq`, { prepare: st.prepare })
  return rows.map((r) => ({
    seq: Number(r[0]),
    resourceType: r[1] as string,
    resourceId: Number(r[2]),
    action: r[3] as ChangeAction,
    occurredAt: Number(r[4]),
    updatedAt: Number(r[5]),
    doc: (r[6] as string | null) ?? null,
    sensitive: (r[7] as string | null) ?? null,
    originKind: r[8] as string,
    originCredential: (r[9] as string | null) ?? null,
    originRef: (r[10] as string | null) ?? null,
  }))
}

/** A feed page rendered by the database: its first `shown` items as JSON text, joined by commas. */
export interface RenderedChangePage {
  readonly items: string
  /** Changes read (at most `shown` + 1: one more than shown means there are more). */
  readonly count: number
  /** Sequence number of the last item shown; null for an empty page. */
  readonly lastSeq: number | null
  /**
   * The position pruning has removed changes through (0 when nothing was pruned), read in the
   * same statement: a page after an older position misses changes (410), and checking costs
   * no second round trip.
   */
  readonly prunedThrough: number
}

/** Times the database writes as `Date#toISOString` does: years 1970 to 9999. */
const ISO_RANGE = '0 AND 253402300799999'

/**
 * The page `readChangePage` reads, with its items written by the database in the feed's JSON
 * (`resourceType`, `resourceId`, `action`, `updatedAt`, `occurredAt`, `snapshot`, the
 * sensitive part spliced into the document as `mergeDocText` does, a record the caller may not
 * see as a delete without a snapshot), aggregated into one text. A page of 200 changes is then
 * one value to receive instead of 1,600, and no string is built per item in JavaScript: on
 * PostgreSQL most of a page's time was garbage collection of those values (docs/decisions.md).
 * Undefined when a change's times fall outside the years 1970–9999 or a sensitive part cannot
 * be spliced as text: the caller renders the rows itself.
 */
export async function readRenderedChangePage(database: Database, q: FeedPageQuery, families: readonly FeedFamily[], shown: number): Promise<RenderedChangePage | undefined> {
  // No type to read (a caller without read scopes): the caller's own path answers the empty page.
  if (families.length === 0) return undefined
  const { sql, prepare } = renderedChangePageStatement(database.adapter, q, families, shown)
  const [[count, lastSeq, ok, items, prunedThrough]] = await readRows(database, sql, { prepare })
  if (Number(ok ?? 1) !== 1) return undefined
  return { items: (items as string | null) ?? '', count: Number(count), lastSeq: lastSeq === null ? null : Number(lastSeq), prunedThrough: Number(prunedThrough ?? 0) }
}

/**
 * The statement `readRenderedChangePage` runs: one row of (changes read, last position shown,
 * 1 when every item could be written by the database, the items' text). Exported for the
 * bench's feed floor, which runs the same statement straight through the driver.
 */
export function renderedChangePageStatement(adapter: DialectAdapter, q: FeedPageQuery, families: readonly FeedFamily[], shown: number): { sql: Fragment; prepare: boolean } {
  const st = new ReadStatement(adapter)
  const a = st.adapter
  const page = pageStatement(st, q, families)
  const show = Math.trunc(shown)
  const snapshot = `CASE WHEN r.doc IS NULL OR r.doc = '' THEN 'null' WHEN r.sensitive IS NULL OR length(r.sensitive) <= 2 THEN r.doc ELSE substr(r.doc, 1, length(r.doc) - 1) || ',' || substr(r.sensitive, 2) END`
  // concat() writes an item in one pass; a chain of || copies it once per part.
  const item = frag`concat('{"position":', r.seq, ',"resourceType":"', r.resource_type, '","resourceId":', r.resource_id, ',"action":"', CASE WHEN r.doc = '' THEN 'deleted' ELSE r.action END, ${raw(
    `'","updatedAt":"', ${a.isoOfMs('r.updated_at')}, '","occurredAt":"', ${a.isoOfMs('r.occurred_at')}, '","origin":', `)}${originSql(q.viewer)}${raw(`, ',"snapshot":', ${snapshot}, '}')`)}`
  const renderable = `CASE WHEN r.updated_at BETWEEN ${ISO_RANGE} AND r.occurred_at BETWEEN ${ISO_RANGE} `
    + `AND (r.sensitive IS NULL OR length(r.sensitive) <= 2 OR (r.doc LIKE '%}' AND r.sensitive LIKE '{%')) THEN 1 ELSE 0 END`
  // The engine's aggregate around the item, which carries the viewer as a parameter.
  const [before, after] = a.joinInOrder(ITEM_MARK, 'r.seq').split(ITEM_MARK)
  const aggregated = frag`${raw(`${before ?? ''}CASE WHEN r.n <= ${show} THEN `)}${item}${raw(` END${after ?? ''}`)}`
  const pruned = `(SELECT value FROM meta WHERE key = ${sqlLiteral(PRUNED_THROUGH_KEY)})`
  const summary = frag`SELECT count(*), max(CASE WHEN r.n <= ${raw(String(show))} THEN r.seq END), min(${raw(renderable)}), ${aggregated}, ${raw(pruned)} FROM r`
  const sql = frag`WITH ${page.with}, r AS (SELECT p.*, row_number() OVER (ORDER BY p.seq) AS n FROM (${page.select}) p) ${summary}`
  return { sql, prepare: st.prepare }
}

/**
 * The page's statement in two parts: `with`, the page of the log (a materialized common table
 * expression `page`), and `select`, its changes with each one's current document (`doc`) and
 * sensitive part (`sensitive`) looked up by id, the caller's visibility evaluated in the same
 * lookup. No document is parsed.
 */
function pageStatement(st: ReadStatement, q: FeedPageQuery, families: readonly FeedFamily[]): { with: Fragment; select: Fragment } {
  const a = st.adapter
  // One scalar subquery per type, chosen by the row's type: an index lookup by id.
  const lookup = (column: 'doc' | 'sensitive', f: FeedFamily) => {
    const text = raw(a.docSql(`t.${column}`))
    const value = f.visible.length === 0 ? text : frag`CASE WHEN ${conditionsSql(st, f.resource, 't', f.visible)} THEN ${text} ELSE '' END`
    return frag`WHEN ${raw(sqlLiteral(f.resource.changeType))} THEN (SELECT ${value} FROM ${raw(sqlName(f.resource.table))} t WHERE t.id = c.resource_id)`
  }
  const snapshot = (column: 'doc' | 'sensitive', of: readonly FeedFamily[]) =>
    of.length === 0 ? raw('NULL') : frag`CASE WHEN c.action = 'deleted' THEN NULL ELSE CASE c.resource_type ${join(of.map((f) => lookup(column, f)), ' ')} END END`
  const docs = snapshot('doc', families)
  const sensitive = snapshot('sensitive', families.filter((f) => f.withSensitive && f.resource.sensitiveKeys.length > 0))
  // The page of the log first, documents after: with the lookups in the same SELECT as the
  // log's ORDER BY … LIMIT, SQLite looked up the document of every change it sorted (up to a
  // page per type) and carried them through the sort; materialized, a page costs one lookup
  // per change it shows.
  return {
    with: frag`page AS MATERIALIZED (${logPage(st, q, families)})`,
    select: frag`SELECT c.seq, c.resource_type, c.resource_id, c.action, c.occurred_at, c.updated_at, ${docs} AS doc, ${sensitive} AS sensitive, c.origin_kind, c.origin_credential, c.origin_ref FROM page c`,
  }
}

const LOG_COLUMNS = 'c.seq, c.resource_type, c.resource_id, c.action, c.occurred_at, c.updated_at, c.origin_kind, c.origin_credential, c.origin_ref'

/** Where the item's text goes in the engine's aggregate (a character no SQL text holds). */
const ITEM_MARK = '\u0000item\u0000'

/**
 * The page's change-log rows, in sequence order: the engine's own form of "these types after
 * this position" (the adapter's `changesOfTypesAfter`).
 */
function logPage(st: ReadStatement, q: FeedPageQuery, families: readonly FeedFamily[]): Fragment {
  const limit = Math.trunc(q.limit)
  const more = frag`${q.updatedSince !== undefined ? frag` AND c.updated_at >= ${q.updatedSince}` : EMPTY}${q.action !== undefined ? actionCondition(st, q.action, families) : EMPTY}${feedConditions(st, q, families)}`
  const types = families.map((f) => sqlLiteral(f.resource.changeType))
  // A bounded range (`upTo`): the positions themselves bound the read on either engine (the
  // primary key's range), whatever share of them the conditions keep.
  if (q.upTo !== undefined) return frag`SELECT ${raw(LOG_COLUMNS)} FROM change_log c WHERE c.seq > ${q.afterSeq} AND c.resource_type IN (${raw(types.join(', '))})${more} ORDER BY c.seq LIMIT ${raw(String(limit))}`
  return st.adapter.changesOfTypesAfter(LOG_COLUMNS, types, param(q.afterSeq), more, limit)
}

/**
 * The log conditions of a page beyond its types and position: a bound on the range read,
 * origins, the reader's own writes left out, and the snapshot filter of each family (its
 * record as it is now must meet it; a delete has no record and always passes, so a mirror
 * still drops what it may hold).
 */
function feedConditions(st: ReadStatement, q: FeedPageQuery, of: readonly FeedFamily[]): Fragment {
  const parts: Fragment[] = []
  if (q.upTo !== undefined) parts.push(frag` AND c.seq <= ${q.upTo}`)
  if (q.origins !== undefined) {
    st.prepare = false
    parts.push(frag` AND c.origin_kind IN (${join(q.origins.map(param), ', ')})`)
  }
  if (q.excludeCredential !== undefined) parts.push(frag` AND (c.origin_credential IS NULL OR c.origin_credential <> ${q.excludeCredential})`)
  const filtered = of.filter((f) => f.filter !== undefined && f.filter.length > 0)
  if (filtered.length > 0) {
    st.prepare = false
    // A record the caller may not see is shown as a delete and passes as one, whatever it
    // holds: testing the filter on it would tell its content one guess at a time.
    const test = (f: FeedFamily) => {
      const meets = conditionsSql(st, f.resource, 't', f.filter ?? [])
      return f.visible.length === 0 ? meets : frag`CASE WHEN ${conditionsSql(st, f.resource, 't', f.visible)} THEN ${meets} ELSE 1 = 1 END`
    }
    const tests = filtered.map((f) => frag`WHEN ${raw(sqlLiteral(f.resource.changeType))} THEN EXISTS (SELECT 1 FROM ${raw(sqlName(f.resource.table))} t WHERE t.id = c.resource_id AND ${test(f)})`)
    parts.push(frag` AND (c.action = 'deleted' OR CASE c.resource_type ${join(tests, ' ')} ELSE 1 = 1 END)`)
  }
  return parts.length === 0 ? EMPTY : join(parts, '')
}

/**
 * `action` as the item shows it: a change of a record the caller may not see now is shown as
 * a delete, so it is one of the deletes and none of the creates or updates.
 */
function actionCondition(st: ReadStatement, action: string, of: readonly FeedFamily[]): Fragment {
  const guarded = of.filter((f) => f.visible.length > 0)
  if (guarded.length === 0) return frag` AND c.action = ${action}`
  const hiddenIn = (f: FeedFamily) => frag`WHEN ${raw(sqlLiteral(f.resource.changeType))} THEN EXISTS (SELECT 1 FROM ${raw(sqlName(f.resource.table))} t WHERE t.id = c.resource_id AND CASE WHEN ${conditionsSql(st, f.resource, 't', f.visible)} THEN 0 ELSE 1 END = 1)`
  const hidden = frag`CASE c.resource_type ${join(guarded.map(hiddenIn), ' ')} ELSE 1 = 0 END`
  return action === 'deleted' ? frag` AND (c.action = 'deleted' OR ${hidden})` : frag` AND c.action = ${action} AND NOT (${hidden})`
}

/** The item's `origin` as JSON text, written by the database (see originView). */
function originSql(viewer: string | undefined): Fragment {
  const kindOnly = `concat('{"kind":"', r.origin_kind, '"}')`
  if (viewer === undefined) return raw(kindOnly)
  const ref = `CASE WHEN r.origin_ref IS NULL THEN '' WHEN r.origin_kind = 'job' THEN concat(',"runId":"', r.origin_ref, '"') ELSE concat(',"executionId":"', r.origin_ref, '"') END`
  return frag`CASE WHEN r.origin_credential = CAST(${viewer} AS text) THEN concat('{"kind":"', r.origin_kind, '","credentialId":', CAST(${JSON.stringify(viewer)} AS text), ${raw(ref)}, '}') ELSE ${raw(kindOnly)} END`
}
