// Opens the store on SQLite (embedded default) or PostgreSQL, chosen by the URL's scheme.
// What differs by engine lives in src/store/dialects/<engine>/ behind the adapter's flags
// and fragments (src/store/dialects/dialect-adapter.ts), never in `if (pg)` elsewhere.
import type { Database, DatabaseOptions } from './dialects/dialect.js'
import { openPostgres } from './dialects/postgres/pool.js'
import { openSqlite } from './dialects/sqlite/connection.js'

export type { Database, DatabaseOptions } from './dialects/dialect.js'
export type { Db } from './dialects/db.js'
export { DEFAULT_BUSY_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS } from './dialects/dialect.js'
export type { DialectAdapter, DialectName } from './dialects/dialect-adapter.js'
export type { ColumnInfo, IndexInfo, TableInfo } from './dialects/table-info.js'

export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  return url.startsWith('sqlite:') ? openSqlite(url, options) : openPostgres(url, options)
}

/** snake_case column name of a document property. */
export const columnName = (property: string) => property.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())
