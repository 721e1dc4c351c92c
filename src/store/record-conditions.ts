// The conditions a read puts on a family's records, and their SQL. A `filter` path test is
// answered by an index wherever one can: a top-level property mirrored in a declared column
// compares the column (its B-tree index, or on PostgreSQL its trigram index for `~`), an exact
// match elsewhere in the document is a `jsonb @>` containment the document's GIN index
// answers (PostgreSQL); what is left reads the path from the document row by row.
import type { ColumnType, Resource } from '../resources/declare.js'
import { columnName } from './database.js'
import type { ReadStatement } from './read-statement.js'
import { EMPTY, frag, join, param, raw, type Fragment } from './sql-fragment.js'
import { sqlName } from './sql-quote.js'
import type { PathTest } from '../kernel/path-test.js'


export type Condition =
  | { readonly kind: 'eq'; readonly column: string; readonly value: string | number | boolean }
  /** Records whose `column` holds the id of a record of `owner` that matches `where`. */
  | { readonly kind: 'ownedBy'; readonly column: string; readonly ownerTable: string; readonly where: readonly Condition[] }
  | { readonly kind: 'search'; readonly columns: readonly string[]; readonly pattern: string }
  | { readonly kind: 'gte'; readonly column: string; readonly value: number }
  | { readonly kind: 'lte'; readonly column: string; readonly value: number }
  | { readonly kind: 'path'; readonly test: PathTest }
  | { readonly kind: 'idIn'; readonly ids: readonly number[] }
  | { readonly kind: 'in'; readonly column: string; readonly values: readonly (string | number)[] }
  /** Any of the conditions holds (none given: nothing does). */
  | { readonly kind: 'anyOf'; readonly conditions: readonly Condition[] }

/** SQL column of a property (`updatedAt` and `createdAt` are base columns). */
export const columnOf = (property: string) => (property === 'updatedAt' ? 'updated_at' : property === 'createdAt' ? 'created_at' : columnName(property))

const ALWAYS = raw('1 = 1')
const NEVER = raw('1 = 0')

/** Each value a parameter, separated by commas (an IN list). */
const valueList = (values: readonly unknown[]) => join(values.map(param), ', ')

/**
 * The SQL of `conditions` on the family table aliased `alias` (all must hold). `r` is the
 * family, for the columns its declaration mirrors; owner subqueries get aliases of their own.
 */
export function conditionsSql(st: ReadStatement, r: Resource | undefined, alias: string, conditions: readonly Condition[]): Fragment {
  return conditions.length === 0 ? ALWAYS : join(conditions.map((c) => conditionSql(st, r, alias, c)), ' AND ')
}

function conditionSql(st: ReadStatement, r: Resource | undefined, alias: string, c: Condition): Fragment {
  const a = st.adapter
  const colText = (name: string) => `${alias}.${sqlName(columnOf(name))}`
  const col = (name: string) => raw(colText(name))
  switch (c.kind) {
    case 'eq': return frag`${col(c.column)} = ${c.value}`
    case 'gte': return frag`${col(c.column)} >= ${c.value}`
    case 'lte': return frag`${col(c.column)} <= ${c.value}`
    case 'idIn': return c.ids.length === 0 ? NEVER : frag`${raw(alias)}.id IN (${valueList(c.ids)})`
    case 'in': {
      // The number of values is part of the text: such statements are not kept prepared.
      st.prepare = false
      const ref = c.column === 'id' ? raw(`${alias}.id`) : col(c.column)
      return c.values.length === 0 ? NEVER : frag`${ref} IN (${valueList(c.values)})`
    }
    case 'anyOf': return c.conditions.length === 0 ? NEVER : frag`(${join(c.conditions.map((x) => frag`(${conditionSql(st, r, alias, x)})`), ' OR ')})`
    case 'search': {
      st.prepare = false
      if (c.columns.length === 0) return NEVER
      return frag`(${join(c.columns.map((name) => a.ilike(colText(name), param(c.pattern))), ' OR ')})`
    }
    case 'ownedBy': {
      // Correlated, so a page checks the owners of its own rows only (an index lookup each),
      // whatever the size of the owner table.
      const owner = `${alias}_owner`
      return frag`EXISTS (SELECT 1 FROM ${raw(`${sqlName(c.ownerTable)} ${owner}`)} WHERE ${raw(owner)}.id = ${col(c.column)} AND ${conditionsSql(st, undefined, owner, c.where)})`
    }
    case 'path': return pathSql(st, r, alias, c.test)
  }
}

function pathSql(st: ReadStatement, r: Resource | undefined, alias: string, t: PathTest): Fragment {
  const column = r && t.path.length === 1 && t.arrayAt === undefined && !t.orElements && Object.hasOwn(r.columns, t.path[0]) ? r.columns[t.path[0]] : undefined
  if (column && (t.op === 'exact' || column.type === 'text')) return columnTestSql(st, `${alias}.${sqlName(columnName(t.path[0]))}`, column.type, t)
  const contains = st.adapter.jsonContains
  if (t.op === 'exact' && t.source === 'doc' && contains) {
    const docs = containmentDocuments(t)
    if (docs) {
      st.prepare = false
      return frag`(${join(docs.map((d) => contains(`${alias}.doc`, param(d))), ' OR ')})`
    }
  }
  return documentPathSql(st, alias, t)
}

/**
 * An exact path test of rows another index found (a list driven by a term): where the engine
 * can, every containment document at once, the document converted once and the statement
 * the same whatever the path (so it stays prepared); else the test as a filter writes it.
 */
export function pathRecheckSql(st: ReadStatement, r: Resource, alias: string, t: PathTest): Fragment {
  const containsAny = st.adapter.jsonContainsAny
  const docs = containsAny && t.op === 'exact' && t.source === 'doc' ? containmentDocuments(t) : undefined
  return containsAny && docs ? containsAny(`${alias}.doc`, param(docs)) : pathSql(st, r, alias, t)
}

/** An exact match or LIKE on a mirrored column, with the semantics of the document path test. */
function columnTestSql(st: ReadStatement, ref: string, type: ColumnType, t: PathTest): Fragment {
  if (t.op === 'like') {
    st.prepare = false
    return st.adapter.ilike(ref, param(t.value))
  }
  const { values, orNull } = columnCandidates(type, t.value)
  const parts = values.map((v) => frag`${raw(ref)} = ${v}`)
  if (orNull) parts.push(raw(`${ref} IS NULL`))
  return parts.length === 0 ? NEVER : parts.length === 1 ? parts[0] : frag`(${join(parts, ' OR ')})`
}

/**
 * Column values a filter value matches exactly: the value's plain text (strings) or the
 * value its JSON text denotes (`12`, `true`, `null`, `"a b"`), as the document comparison would.
 */
export function columnCandidates(type: ColumnType, value: string): { values: (string | number | boolean)[]; orNull: boolean } {
  const json = jsonScalar(value)
  const orNull = json === null
  switch (type) {
    case 'text':
      return { values: typeof json === 'string' && json !== value ? [value, json] : [value], orNull }
    case 'integer':
      return { values: typeof json === 'number' && Number.isInteger(json) ? [json] : [], orNull }
    case 'real':
      return { values: typeof json === 'number' ? [json] : [], orNull }
    case 'boolean':
      return { values: typeof json === 'boolean' ? [json] : [], orNull }
    case 'timestamp': {
      // Stored as milliseconds; the document holds the ISO text.
      const texts = [value, ...(typeof json === 'string' ? [json] : [])]
      const values = texts.map((s) => Date.parse(s)).filter((ms, i) => Number.isFinite(ms) && new Date(ms).toISOString() === texts[i])
      return { values, orNull }
    }
  }
}

/** The scalar a text is the canonical JSON of (`12`, `true`, `null`, `"x"`), else undefined. */
export function jsonScalar(text: string): string | number | boolean | null | undefined {
  if (text === 'null') return null
  if (text === 'true') return true
  if (text === 'false') return false
  if (text.startsWith('"')) {
    try {
      const v: unknown = JSON.parse(text)
      return typeof v === 'string' ? v : undefined
    } catch {
      return undefined
    }
  }
  if (/^-?\d/.test(text)) {
    const n = Number(text)
    return Number.isFinite(n) && JSON.stringify(n) === text ? n : undefined
  }
  return undefined
}

/** A filter value written as a JSON object or array, which path tests compare as text. */
export const isStructuredValue = (value: string) => /^\s*[[{]/.test(value)

/**
 * JSON documents whose containment is the exact test: the path's value (or an element of
 * the array on the way, or of a free-form value) is the plain text or the JSON value given.
 * Undefined for object or array values, which the path test compares as text.
 */
export function containmentDocuments(t: PathTest): string[] | undefined {
  if (isStructuredValue(t.value)) return undefined
  const json = jsonScalar(t.value)
  const scalars: unknown[] = json === undefined || json === t.value ? [t.value] : [t.value, json]
  const nest = (path: readonly string[], leaf: unknown): unknown => path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), leaf)
  const docs: unknown[] = []
  for (const s of scalars) {
    if (t.arrayAt !== undefined) {
      docs.push(nest(t.path.slice(0, t.arrayAt), [nest(t.path.slice(t.arrayAt), s)]))
    } else {
      docs.push(nest(t.path, s))
      if (t.orElements) docs.push(nest(t.path, [s]))
    }
  }
  return docs.map((d) => JSON.stringify(d))
}

/** The path read from the document row by row (no index can answer it). */
function documentPathSql(st: ReadStatement, alias: string, t: PathTest): Fragment {
  st.prepare = false
  const a = st.adapter
  const source = `${alias}.${t.source}`
  // An exact match of a scalar needs its JSON text, or the string's, somewhere in the stored
  // document (written by JSON.stringify, so in that form): a cheap text search that spares
  // reading the path from most documents (SQLite has no index for it).
  const candidates = t.op === 'exact' && !isStructuredValue(t.value) ? [...new Set([t.value, JSON.stringify(t.value)])] : []
  const prefilter = candidates.length > 0 ? frag`(${join(candidates.map((c) => a.textContainsSql(source, param(c))), ' OR ')}) AND ` : EMPTY
  const compare = (jsonExpr: string, textExpr: string) => t.op === 'like'
    ? a.ilike(textExpr, param(t.value))
    // Exact: the value's JSON text (`12`, `true`) or, for strings, the plain text.
    : frag`(${raw(jsonExpr)} = ${t.value} OR (${raw(textExpr)} = ${t.value} AND ${raw(jsonExpr)} LIKE '"%'))`
  if (t.arrayAt === undefined) {
    const scalar = compare(a.jsonAt(source, t.path), a.textAt(source, t.path))
    if (!t.orElements) return frag`(${prefilter}${scalar})`
    return frag`(${prefilter}(${scalar} OR ${a.anyElement(source, t.path, (el) => compare(a.elementJsonAt(el, []), a.elementTextAt(el, [])))}))`
  }
  const inner = t.path.slice(t.arrayAt)
  return frag`(${prefilter}${a.anyElement(source, t.path.slice(0, t.arrayAt), (el) => compare(a.elementJsonAt(el, inner), a.elementTextAt(el, inner)))})`
}
