// Reading records: one indexed keyset query per page, filters executed in the database
// (so pages are never short), documents returned as JSON text ready to send.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Resource } from '../resources/declare.js'
import { columnName, type Database } from './database.js'

/** `updatedAt`, `createdAt` or an indexed column a family allows sorting by. */
export type SortKey = string

/** A document path test: `arrayAt` splits the path where an array's elements are tested. */
export interface PathTest {
  readonly source: 'doc' | 'sensitive'
  readonly path: readonly string[]
  readonly arrayAt?: number
  /** Free-form values: the path holds when its value matches, or any element of it does. */
  readonly orElements?: boolean
  readonly op: 'exact' | 'like'
  /** exact: the JSON text or plain text of the value; like: a LIKE pattern (case-insensitive). */
  readonly value: string
}

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

const sortColumn = (sort: SortKey) => (sort === 'updatedAt' ? 'updated_at' : sort === 'createdAt' ? 'created_at' : columnName(sort))

/** Escapes LIKE metacharacters; `*` (when wildcards are on) becomes `%`. */
export function likePattern(text: string, { contains, wildcard }: { contains: boolean; wildcard: boolean }): string {
  let p = text.replace(/[\\%_]/g, (c) => '\\' + c)
  if (wildcard) p = p.replace(/\*/g, '%')
  return contains ? `%${p}%` : p
}

export class RecordReader {
  constructor(private readonly database: Database) {}

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private condition(eb: ExpressionBuilder<any, any>, c: Condition): Expression<SqlBool> {
    const a = this.database.adapter
    switch (c.kind) {
      case 'eq': return eb(columnName(c.column), '=', typeof c.value === 'boolean' ? a.bool(c.value) : c.value)
      case 'gte': return eb(columnName(c.column), '>=', c.value)
      case 'idIn': return c.ids.length === 0 ? sql<SqlBool>`1 = 0` : eb('id', 'in', c.ids)
      case 'in': return c.values.length === 0 ? sql<SqlBool>`1 = 0` : eb(c.column === 'id' ? 'id' : columnName(c.column), 'in', c.values)
      case 'anyOf': return c.conditions.length === 0 ? sql<SqlBool>`1 = 0` : eb.or(c.conditions.map((x) => this.condition(eb, x)))
      case 'search':
        return eb.or(c.columns.map((col) => a.ilike(sql.ref(columnName(col)), c.pattern) as Expression<SqlBool>))
      case 'lte': return eb(columnName(c.column), '<=', c.value)
      case 'ownedBy':
        return eb(columnName(c.column), 'in', eb.selectFrom(c.ownerTable).select('id').where((inner) => inner.and(c.where.map((w) => this.condition(inner, w)))))
      case 'path': return this.pathTest(c.test)
    }
  }

  private pathTest(t: PathTest): Expression<SqlBool> {
    const a = this.database.adapter
    const compare = (jsonExpr: Expression<unknown>, textExpr: Expression<unknown>) =>
      t.op === 'like'
        ? a.ilike(sql`${textExpr}`, t.value)
        // Exact: the value's JSON text (`12`, `true`) or, for strings, the plain text.
        : sql<boolean>`(${jsonExpr} = ${t.value} OR (${textExpr} = ${t.value} AND ${jsonExpr} LIKE '"%'))`
    if (t.arrayAt === undefined) {
      const scalar = compare(a.jsonAt(t.source, t.path), a.textAt(t.source, t.path))
      if (!t.orElements) return scalar as Expression<SqlBool>
      const element = a.anyElement(t.source, t.path, (el) => compare(a.elementJsonAt(el, []), a.elementTextAt(el, [])))
      return sql<SqlBool>`(${scalar} OR ${element})`
    }
    const outer = t.path.slice(0, t.arrayAt)
    const inner = t.path.slice(t.arrayAt)
    return a.anyElement(t.source, outer, (el) =>
      compare(a.elementJsonAt(el, inner), a.elementTextAt(el, inner))) as Expression<SqlBool>
  }

  async list(r: Resource, q: RecordQuery): Promise<RecordRow[]> {
    const a = this.database.adapter
    const col = sortColumn(q.sort)
    const dir = q.desc ? 'desc' : 'asc'
    let query = this.database.db.selectFrom(r.table)
      .select(['id', sql.ref(col).as('sort_key'), a.docText('doc').as('doc')])
      .where((eb) => eb.and(q.conditions.map((c) => this.condition(eb, c))))
    if (q.withSensitive && r.sensitiveKeys.length > 0) query = query.select(a.docText('sensitive').as('sensitive'))
    if (q.after) {
      const { key, id } = q.after
      query = query.where((eb) => eb(eb.refTuple(col, 'id'), q.desc ? '<' : '>', eb.tuple(key, id)))
    }
    const rows = await query.orderBy(col, dir).orderBy('id', dir).limit(q.limit).execute()
    return rows.map((row) => ({
      id: Number(row.id),
      sortKey: typeof row.sort_key === 'string' ? row.sort_key : Number(row.sort_key),
      doc: row.doc as string,
      sensitive: ((row as Record<string, unknown>).sensitive as string | null | undefined) ?? null,
    }))
  }

  /** One record by selector columns (all must match) that also meets `conditions`. */
  async findOne(r: Resource, where: Readonly<Record<string, string | number>>, withSensitive: boolean, conditions: readonly Condition[] = []): Promise<RecordRow | undefined> {
    const a = this.database.adapter
    let query = this.database.db.selectFrom(r.table).select(['id', 'updated_at', a.docText('doc').as('doc')])
    if (conditions.length > 0) query = query.where((eb) => eb.and(conditions.map((c) => this.condition(eb, c))))
    if (withSensitive && r.sensitiveKeys.length > 0) query = query.select(a.docText('sensitive').as('sensitive'))
    for (const [prop, value] of Object.entries(where)) query = query.where(prop === 'id' || prop === 'uid' ? prop : columnName(prop), '=', value)
    const row = await query.orderBy('id').limit(1).executeTakeFirst()
    if (!row) return undefined
    return { id: Number(row.id), sortKey: Number(row.updated_at), doc: row.doc as string, sensitive: ((row as Record<string, unknown>).sensitive as string | null | undefined) ?? null }
  }

  /** `id IN (ids of r meeting conditions)`, as a condition on another query's `column` (the change log's resource_id). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  idsMeetingExpression(eb: ExpressionBuilder<any, any>, column: string, r: Resource, conditions: readonly Condition[]): Expression<SqlBool> {
    return eb(column, 'in', eb.selectFrom(r.table).select('id').where((inner) => inner.and(conditions.map((c) => this.condition(inner, c)))))
  }

  /** Which of `ids` meet `conditions` (the change feed hides records a caller may not see). */
  async idsMeeting(r: Resource, ids: readonly number[], conditions: readonly Condition[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set()
    const rows = await this.database.db.selectFrom(r.table).select('id').where('id', 'in', ids)
      .where((eb) => eb.and(conditions.map((c) => this.condition(eb, c)))).execute()
    return new Set(rows.map((row) => Number(row.id)))
  }

  /** Documents of several records by id (for change-feed snapshots). */
  async docsByIds(r: Resource, ids: readonly number[], withSensitive: boolean): Promise<Map<number, RecordRow>> {
    const a = this.database.adapter
    const out = new Map<number, RecordRow>()
    if (ids.length === 0) return out
    let query = this.database.db.selectFrom(r.table).select(['id', 'updated_at', a.docText('doc').as('doc')]).where('id', 'in', ids)
    if (withSensitive && r.sensitiveKeys.length > 0) query = query.select(a.docText('sensitive').as('sensitive'))
    for (const row of await query.execute()) {
      out.set(Number(row.id), { id: Number(row.id), sortKey: Number(row.updated_at), doc: row.doc as string, sensitive: ((row as Record<string, unknown>).sensitive as string | null | undefined) ?? null })
    }
    return out
  }
}
