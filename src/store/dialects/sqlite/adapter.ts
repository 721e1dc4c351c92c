// The SQLite dialect: flags and column types here, each other piece in its own file.
import type { DialectAdapter } from '../dialect-adapter.js'
import { sqliteErrors } from './errors.js'
import { describeSqliteTables } from './introspection.js'
import { sqliteSql } from './sql.js'
import { sqliteTransactions } from './transactions.js'

export const sqliteAdapter: DialectAdapter = {
  name: 'sqlite',
  jsonType: 'text',
  idColumnType: 'integer primary key autoincrement',
  booleanType: 'integer',
  bigintType: 'integer',
  doubleType: 'real',
  searchIndexes: false,
  // In process, the documents are already strings in the engine's memory; SQLite's text
  // concatenation copies each of them several times: 600 pages/s rendered here, 443 by SQLite.
  rendersChangePages: false,
  rowLocks: false,
  // Waits are bounded by busy_timeout only; a statement runs as long as it takes.
  statementTimeouts: false,
  // Positional `?`; no booleans, so 1 and 0.
  numbered: false,
  bool: (v) => (v ? 1 : 0),
  ...sqliteSql,
  ...sqliteTransactions,
  describeTables: describeSqliteTables,
  ...sqliteErrors,
}
