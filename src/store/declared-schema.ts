// The table a resource declaration calls for: the base columns every family has, one column
// per indexed property, unique indexes (`unique`, `uniqueWith`) and the keyset indexes lists
// and sorts use. Schema reconciliation compares this with the database; the names and shapes
// are the ones migration 001 gave the first families, so their tables match as they are.
import type { ColumnType, Resource } from '../resources/declare.js'
import { columnName, type DialectAdapter } from './database.js'

export interface DeclaredColumn {
  /** The document property it mirrors. */
  readonly property: string
  readonly name: string
  readonly type: ColumnType
  readonly sqlType: string
  /** Where the property's value is stored: the public document or the sensitive part. */
  readonly source: 'doc' | 'sensitive'
}

export interface DeclaredIndex {
  readonly name: string
  readonly columns: readonly string[]
  readonly unique: boolean
}

export interface DeclaredTable {
  readonly resource: Resource
  readonly name: string
  readonly columns: readonly DeclaredColumn[]
  readonly indexes: readonly DeclaredIndex[]
}

/** Columns every family table has, in table order; they are not declared per family. */
export const BASE_COLUMNS = ['id', 'uid', 'created_at', 'updated_at', 'doc', 'sensitive'] as const

export function sqlTypeOf(adapter: DialectAdapter, type: ColumnType): string {
  switch (type) {
    case 'integer': case 'timestamp': return adapter.bigintType
    case 'real': return adapter.doubleType
    case 'boolean': return adapter.booleanType
    case 'text': return 'text'
  }
}

export function declaredTable(r: Resource, adapter: DialectAdapter): DeclaredTable {
  const t = r.table
  const columns = Object.entries(r.columns).map(([property, c]): DeclaredColumn => ({
    property, name: columnName(property), type: c.type, sqlType: sqlTypeOf(adapter, c.type),
    source: r.sensitiveKeys.includes(property) ? 'sensitive' : 'doc',
  }))
  // Keyset order (updated_at, id) alone and after each equality column.
  const indexes: DeclaredIndex[] = [{ name: `${t}_updated`, columns: ['updated_at', 'id'], unique: false }]
  for (const [property, c] of Object.entries(r.columns)) {
    const col = columnName(property)
    if (c.unique) indexes.push({ name: `${t}_${col}_unique`, columns: [col], unique: true })
    else if (c.uniqueWith) indexes.push({ name: `${t}_${col}_unique`, columns: [...c.uniqueWith.map(columnName), col], unique: true })
    indexes.push({ name: `${t}_${col}_updated`, columns: [col, 'updated_at', 'id'], unique: false })
  }
  for (const key of r.sort?.allowed ?? []) {
    if (key === 'createdAt') indexes.push({ name: `${t}_created`, columns: ['created_at', 'id'], unique: false })
    else if (key !== 'updatedAt') indexes.push({ name: `${t}_${columnName(key)}_sort`, columns: [columnName(key), 'id'], unique: false })
  }
  return { resource: r, name: t, columns, indexes }
}

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ')

export function createTableSql(t: DeclaredTable, adapter: DialectAdapter): string {
  const cols = t.columns.map((c) => `,\n    "${c.name}" ${c.sqlType}`).join('')
  return `CREATE TABLE "${t.name}" (
    id ${adapter.idColumnType},
    uid text NOT NULL UNIQUE,
    created_at ${adapter.bigintType} NOT NULL,
    updated_at ${adapter.bigintType} NOT NULL,
    doc ${adapter.jsonType} NOT NULL,
    sensitive ${adapter.jsonType}${cols}
  )`
}

export const addColumnSql = (table: string, c: DeclaredColumn) => `ALTER TABLE "${table}" ADD COLUMN "${c.name}" ${c.sqlType}`

export const createIndexSql = (table: string, i: DeclaredIndex) =>
  `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX "${i.name}" ON "${table}" (${quoted(i.columns)})`

export const dropIndexSql = (name: string) => `DROP INDEX "${name}"`

export const dropColumnSql = (table: string, column: string) => `ALTER TABLE "${table}" DROP COLUMN "${column}"`
