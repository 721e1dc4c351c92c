// Reading records: one indexed keyset query per page, filters executed in the database
// (so pages are never short), documents returned as JSON text ready to send. Statements are
// SQL text built per request and prepared once per (family, query shape) by `Database.read`;
// rows come back as arrays. Kysely stays on the write path, migrations and admin reads.
import type { Resource } from '../resources/declare.js'
import type { Database } from './database.js'
import { ReadStatement, readRows } from './read-statement.js'
import { EMPTY, frag, join, param, raw, renderFragment, type Fragment, type Placeholders } from './sql-fragment.js'
import { sqlName } from './sql-quote.js'
import { columnOf, conditionsSql, pathRecheckSql, type Condition } from './record-conditions.js'
import type { PathTest } from '../kernel/path-test.js'
import { keepsTerms, termOf, termsTableOf } from './record-terms.js'

export { type Condition } from './record-conditions.js'

/** `updatedAt`, `createdAt` or an indexed column a family allows sorting by. */
export type SortKey = string

export interface RecordQuery {
  readonly conditions: readonly Condition[]
  readonly sort: SortKey
  readonly desc: boolean
  readonly after?: { readonly key: string | number; readonly id: number }
  readonly limit: number
  readonly withSensitive: boolean
}

export interface RecordRow {
  readonly id: number
  readonly sortKey: string | number
  readonly doc: string
  readonly sensitive: string | null
}

interface DrivingTerm {
  /** Position of the exact path test in the query's conditions. */
  readonly index: number
  readonly test: PathTest
  readonly term: string
}

/** The first condition a term can drive: an exact test of a path of the public document. */
function drivingTerm(r: Resource, conditions: readonly Condition[]): DrivingTerm | undefined {
  for (let index = 0; index < conditions.length; index++) {
    const c = conditions[index]
    if (c.kind !== 'path') continue
    const term = termOf(r, c.test)
    if (term !== undefined) return { index, test: c.test, term }
  }
  return undefined
}

/**
 * Whether one index serves the query whatever its values, so that PostgreSQL may keep one
 * plan for it instead of planning each call: sorted by updated_at, with at most one equality
 * on a declared column (every such column has an index on (column, updated_at, id), and
 * without one (updated_at, id) serves), and otherwise only bounds on updated_at (a range on
 * that index's next column). Left to choose, PostgreSQL planned a plain keyset page anew at
 * every call (its estimate of a custom plan stayed below the generic one's): 0.39-0.45 ms of
 * its CPU a page against 0.23-0.25 ms with one plan (docs/decisions.md). A second equality,
 * a path test, a search or another sort leave the choice between indexes to the values.
 */
function oneIndexServes(r: Resource, q: RecordQuery): boolean {
  if (q.sort !== 'updatedAt') return false
  let equalities = 0
  for (const c of q.conditions) {
    if (c.kind === 'eq' && r.columns[c.column] !== undefined) equalities++
    else if ((c.kind !== 'gte' && c.kind !== 'lte') || columnOf(c.column) !== 'updated_at') return false
  }
  return equalities <= 1
}

const toRow = (row: unknown[]): RecordRow => ({
  id: Number(row[0]),
  sortKey: typeof row[1] === 'string' ? row[1] : Number(row[1]),
  doc: row[2] as string,
  sensitive: (row[3] as string | null | undefined) ?? null,
})

/** ` AND (key, id) > (after)` (`<` descending): the rows after a page's last one. */
const keysetAfter = (key: string, id: string, desc: boolean, after: RecordQuery['after']): Fragment =>
  after ? frag` AND (${raw(`${key}, ${id}) ${desc ? '<' : '>'}`)} (${after.key}, ${after.id})` : EMPTY

/** A plain page's statement text by its shape (`plainShape`), once written. */
const SHAPES_KEPT = 1000

/**
 * The shape of a plain page (conditions that are all equalities and bounds on columns: a
 * status, a declared column, updatedSince) as a key its statement text is kept under, and the
 * values that text binds, in order. Undefined for any other query (documents' paths, searches,
 * owners, sets), which is written anew each time.
 */
function plainShape(r: Resource, q: RecordQuery, how: Placeholders): { key: string; params: unknown[] } | undefined {
  let key = `${r.table}|${q.sort}|${q.desc ? 'desc' : 'asc'}|${q.withSensitive ? 'sensitive' : ''}|${q.after ? 'after' : ''}|${q.limit}`
  const params: unknown[] = []
  for (const c of q.conditions) {
    if (c.kind !== 'eq' && c.kind !== 'gte' && c.kind !== 'lte') return undefined
    key += `|${c.kind} ${c.column}`
    params.push(typeof c.value === 'boolean' ? how.bool(c.value) : c.value)
  }
  if (q.after) params.push(q.after.key, q.after.id)
  return { key, params }
}

const sameValues = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((v, i) => v === b[i])

export class RecordReader {
  /**
   * Plain pages' statement texts by shape: writing one from its fragments cost a page 5–8 µs
   * of the serving process's CPU (docs/decisions.md, "Gatehouse's own cost, second pass").
   */
  private readonly plainTexts = new Map<string, string>()

  constructor(private readonly database: Database) {}

  /** `SELECT id, <key>, doc[, sensitive] FROM <table> t`, the start of every record read. */
  private select(st: ReadStatement, r: Resource, key: string, withSensitive: boolean): Fragment {
    const a = st.adapter
    return raw(`SELECT t.id, t.${sqlName(key)}, ${a.docSql('t.doc')}${withSensitive && r.sensitiveKeys.length > 0 ? `, ${a.docSql('t.sensitive')}` : ''} FROM ${sqlName(r.table)} t`)
  }

  async list(r: Resource, q: RecordQuery): Promise<RecordRow[]> {
    const driver = q.sort === 'updatedAt' && keepsTerms(r) ? drivingTerm(r, q.conditions) : undefined
    if (driver) return this.listByTerm(r, q, driver)
    const generic = oneIndexServes(r, q)
    const shape = plainShape(r, q, this.database.adapter)
    const kept = shape && this.plainTexts.get(shape.key)
    if (shape && kept) return (await this.database.read(kept, shape.params, { prepare: true, generic })).map(toRow)
    const st = new ReadStatement(this.database.adapter)
    const col = `t.${sqlName(columnOf(q.sort))}`
    const dir = q.desc ? 'DESC' : 'ASC'
    // The limit is part of the text (1..201): a generic plan then knows it.
    const sql = frag`${this.select(st, r, columnOf(q.sort), q.withSensitive)} WHERE ${conditionsSql(st, r, 't', q.conditions)}${keysetAfter(col, 't.id', q.desc, q.after)}${raw(` ORDER BY ${col} ${dir}, t.id ${dir} LIMIT ${Math.trunc(q.limit)}`)}`
    const { text, params } = renderFragment(sql, this.database.adapter)
    // Kept only when the shape's own reading of the values is the one the text binds.
    if (shape && st.prepare && sameValues(params, shape.params)) {
      if (this.plainTexts.size >= SHAPES_KEPT) this.plainTexts.clear()
      this.plainTexts.set(shape.key, text)
    }
    return (await this.database.read(text, params, { prepare: st.prepare, generic })).map(toRow)
  }

  /**
   * A page in `updated_at` order of the records holding a term (src/store/record-terms.ts):
   * the terms' B-tree lists them in page order, and each is read by id and tested against
   * every condition, the driving one included (terms are a superset of its matches).
   */
  private async listByTerm(r: Resource, q: RecordQuery, driver: DrivingTerm): Promise<RecordRow[]> {
    const st = new ReadStatement(this.database.adapter)
    const a = st.adapter
    const dir = q.desc ? 'DESC' : 'ASC'
    const withSensitive = q.withSensitive && r.sensitiveKeys.length > 0
    const others = q.conditions.filter((_, i) => i !== driver.index)
    const where = join([raw('t.id = x.id'), pathRecheckSql(st, r, 't', driver.test), ...(others.length > 0 ? [conditionsSql(st, r, 't', others)] : [])], ' AND ')
    const from = a.joinEach(`${sqlName(termsTableOf(r))} x`, sqlName(r.table), 't', `t.id, t.doc${withSensitive ? ', t.sensitive' : ''}`, where)
    // Bounds on updated_at (an incremental sync's updatedSince) narrow the terms' range too,
    // instead of reading every older candidate only to drop it.
    const bounds = q.conditions.flatMap((c) => (c.kind === 'gte' || c.kind === 'lte') && columnOf(c.column) === 'updated_at'
      ? [frag` AND x.updated_at ${raw(c.kind === 'gte' ? '>=' : '<=')} ${c.value}`] : [])
    const sql = frag`SELECT t.id, x.updated_at, ${raw(`${a.docSql('t.doc')}${withSensitive ? `, ${a.docSql('t.sensitive')}` : ''}`)} FROM ${from} WHERE x.term = ${driver.term}${join(bounds, '')}${keysetAfter('x.updated_at', 'x.id', q.desc, q.after)}${raw(` ORDER BY x.updated_at ${dir}, x.id ${dir} LIMIT ${Math.trunc(q.limit)}`)}`
    // The LATERAL fence fixes the plan whatever the term: PostgreSQL may as well keep one.
    return (await readRows(this.database, sql, { prepare: st.prepare, generic: true })).map(toRow)
  }

  /** One record by selector columns (all must match) that also meets `conditions`. */
  async findOne(r: Resource, where: Readonly<Record<string, string | number>>, withSensitive: boolean, conditions: readonly Condition[] = []): Promise<RecordRow | undefined> {
    const st = new ReadStatement(this.database.adapter)
    const selectors = Object.entries(where).map(([prop, value]) => frag`${raw(`t.${sqlName(prop === 'id' || prop === 'uid' ? prop : columnOf(prop))}`)} = ${value}`)
    const sql = frag`${this.select(st, r, 'updated_at', withSensitive)} WHERE ${join([...selectors, conditionsSql(st, r, 't', conditions)], ' AND ')} ORDER BY t.id LIMIT 1`
    const rows = await readRows(this.database, sql, { prepare: st.prepare })
    return rows.length > 0 ? toRow(rows[0]) : undefined
  }

  /** Which of `ids` meet `conditions`. */
  async idsMeeting(r: Resource, ids: readonly number[], conditions: readonly Condition[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set()
    const st = new ReadStatement(this.database.adapter)
    const sql = frag`SELECT t.id FROM ${raw(sqlName(r.table))} t WHERE t.id IN (${join(ids.map(param), ', ')}) AND ${conditionsSql(st, r, 't', conditions)}`
    const rows = await readRows(this.database, sql, { prepare: false })
    return new Set(rows.map((row) => Number(row[0])))
  }
}
