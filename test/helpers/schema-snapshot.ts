// A database schema as plain lines (one per column and per index), so a stored snapshot
// reads like DDL and a difference shows as a one-line diff.
import type { Database, TableInfo } from '../../src/store/database.js'

export type SchemaSnapshot = Record<string, { columns: string[]; indexes: string[] }>

export function snapshotOf(tables: readonly TableInfo[]): SchemaSnapshot {
  return Object.fromEntries(tables.map((t) => [t.name, {
    columns: t.columns.map((c) => [c.name, c.type, c.notNull ? 'not null' : '', c.defaultValue !== null ? `default ${c.defaultValue}` : '', c.primaryKey ? 'primary key' : '', c.autoIncrement ? 'autoincrement' : '']
      .filter(Boolean).join(' ')),
    indexes: t.indexes.map((i) => `${i.name}${i.unique ? ' unique' : ''} (${i.columns.join(', ')})${i.where !== null ? ` where ${i.where}` : ''}`),
  }]))
}

export async function schemaSnapshot(database: Database): Promise<SchemaSnapshot> {
  return snapshotOf(await database.adapter.describeTables(database.db))
}
