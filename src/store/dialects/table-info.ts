// What the database says a table is (schema reconciliation and the schema snapshot test),
// assembled the same way from either engine's catalogue rows.
import { sql } from 'kysely'

export interface TableInfo {
  readonly name: string
  /** In table order; `type` lower-case as the engine reports it (`integer`, `bigint`, `json`). */
  readonly columns: readonly ColumnInfo[]
  readonly indexes: readonly IndexInfo[]
}

export interface ColumnInfo {
  readonly name: string
  readonly type: string
  readonly notNull: boolean
  readonly defaultValue: string | null
  readonly primaryKey: boolean
  /** Takes the next number of a sequence when no value is given (ids). */
  readonly autoIncrement: boolean
}

export interface IndexInfo {
  readonly name: string
  readonly columns: readonly string[]
  readonly unique: boolean
  /** Access method: `btree` (SQLite's only kind), `gin`, … */
  readonly method: string
  /** The predicate of a partial index, whitespace collapsed; null for a full index. */
  readonly where: string | null
}

/** One key column of an index, as a catalogue query returns it (in key order). */
export interface IndexColumnRow {
  readonly table: string
  readonly index: string
  readonly unique: boolean
  readonly method: string
  readonly column: string
  readonly where: string | null
}

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim()

/** `AND <column> IN (…)` when only some tables are asked for. */
export const onlyTables = (column: string, only: readonly string[] | undefined) =>
  only === undefined ? sql`` : only.length === 0 ? sql` AND 1 = 0` : sql` AND ${sql.ref(column)} IN (${sql.join(only)})`

export function assembleTables(cols: readonly { table: string; column: ColumnInfo }[], idx: readonly IndexColumnRow[]): TableInfo[] {
  const tables = new Map<string, { columns: ColumnInfo[]; indexes: Map<string, { unique: boolean; method: string; columns: string[]; where: string | null }> }>()
  const tableOf = (name: string) => {
    let t = tables.get(name)
    if (!t) tables.set(name, (t = { columns: [], indexes: new Map() }))
    return t
  }
  for (const c of cols) tableOf(c.table).columns.push(c.column)
  for (const i of idx) {
    const t = tableOf(i.table)
    const index = t.indexes.get(i.index) ?? { unique: i.unique, method: i.method, columns: [], where: i.where === null ? null : collapse(i.where) }
    index.columns.push(i.column)
    t.indexes.set(i.index, index)
  }
  return [...tables.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, t]) => ({
    name,
    columns: t.columns,
    indexes: [...t.indexes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([iname, i]) => ({ name: iname, ...i })),
  }))
}
