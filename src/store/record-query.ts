// Reading records: one indexed keyset query per page, filters executed in the database
// (so pages are never short), documents returned as JSON text ready to send. Statements are
// SQL text built per request and prepared once per (family, query shape) by `Database.read`;
// rows come back as arrays. Kysely stays on the write path, migrations and admin reads.
import type { Resource } from '../resources/declare.js'
import type { Database } from './database.js'
import { ReadStatement, sqlName } from './read-statement.js'
import { columnOf, conditionsSql, type Condition } from './record-conditions.js'

export { likePattern, type Condition, type PathTest } from './record-conditions.js'

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

const toRow = (row: unknown[]): RecordRow => ({
  id: Number(row[0]),
  sortKey: typeof row[1] === 'string' ? row[1] : Number(row[1]),
  doc: row[2] as string,
  sensitive: (row[3] as string | null | undefined) ?? null,
})

export class RecordReader {
  constructor(private readonly database: Database) {}

  /** `SELECT id, <key>, doc[, sensitive] FROM <table> t`, the start of every record read. */
  private select(st: ReadStatement, r: Resource, key: string, withSensitive: boolean): void {
    const a = st.adapter
    st.text = `SELECT t.id, t.${sqlName(key)}, ${a.docSql('t.doc')}${withSensitive && r.sensitiveKeys.length > 0 ? `, ${a.docSql('t.sensitive')}` : ''} FROM ${sqlName(r.table)} t`
  }

  async list(r: Resource, q: RecordQuery): Promise<RecordRow[]> {
    const st = new ReadStatement(this.database.adapter)
    const col = `t.${sqlName(columnOf(q.sort))}`
    const dir = q.desc ? 'DESC' : 'ASC'
    this.select(st, r, columnOf(q.sort), q.withSensitive)
    st.text += ` WHERE ${conditionsSql(st, r, 't', q.conditions)}`
    if (q.after) st.text += ` AND (${col}, t.id) ${q.desc ? '<' : '>'} (${st.param(q.after.key)}, ${st.param(q.after.id)})`
    // The limit is part of the text (1..201): a generic plan then knows it.
    st.text += ` ORDER BY ${col} ${dir}, t.id ${dir} LIMIT ${Math.trunc(q.limit)}`
    return (await this.database.read(st.text, st.params, { prepare: st.prepare })).map(toRow)
  }

  /** One record by selector columns (all must match) that also meets `conditions`. */
  async findOne(r: Resource, where: Readonly<Record<string, string | number>>, withSensitive: boolean, conditions: readonly Condition[] = []): Promise<RecordRow | undefined> {
    const st = new ReadStatement(this.database.adapter)
    this.select(st, r, 'updated_at', withSensitive)
    const selectors = Object.entries(where).map(([prop, value]) => `t.${sqlName(prop === 'id' || prop === 'uid' ? prop : columnOf(prop))} = ${st.param(value)}`)
    st.text += ` WHERE ${[...selectors, conditionsSql(st, r, 't', conditions)].join(' AND ')} ORDER BY t.id LIMIT 1`
    const rows = await this.database.read(st.text, st.params, { prepare: st.prepare })
    return rows.length > 0 ? toRow(rows[0]) : undefined
  }

  /** Which of `ids` meet `conditions`. */
  async idsMeeting(r: Resource, ids: readonly number[], conditions: readonly Condition[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set()
    const st = new ReadStatement(this.database.adapter)
    st.text = `SELECT t.id FROM ${sqlName(r.table)} t WHERE t.id IN (${ids.map((id) => st.param(id)).join(', ')}) AND ${conditionsSql(st, r, 't', conditions)}`
    const rows = await this.database.read(st.text, st.params, { prepare: false })
    return new Set(rows.map((row) => Number(row[0])))
  }
}
