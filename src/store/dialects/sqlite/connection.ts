// Opens a SQLite database file (or memory): the writing connection Kysely uses, which also
// serves the hot read path, a second connection for reads during a write transaction and for
// the data version, and statement caches on both.
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { createRequire } from 'node:module'
import type SQLite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import { DEFAULT_BUSY_TIMEOUT_MS, type Database, type DatabaseOptions } from '../dialect.js'
import { type Db } from '../db.js'
import { sqliteAdapter } from './adapter.js'
import { SettingsError } from '../../../kernel/settings.js'

// The driver is loaded when a database of its kind is opened: a process needs one of the
// two, and each costs a few MB of memory.
const load = createRequire(import.meta.url)

/** Runs `f`; a failure (a path that cannot be a folder, no permission) names the setting the path came from. */
function named<T>(what: string, f: () => T): T {
  try {
    return f()
  } catch (err) {
    throw new SettingsError('PLUGIN_GATEHOUSE_DATABASE_URL', `${what} (${err instanceof Error ? err.message : String(err)})`)
  }
}

export function openSqlite(url: string, options: DatabaseOptions): Database {
  const file = url.slice('sqlite:'.length) || ':memory:'
  const memory = file === ':memory:'
  if (!memory) named(`cannot make the folder of the SQLite file ${file}`, () => mkdirSync(dirname(file), { recursive: true }))
  const open = () => {
    const conn = named(`cannot open the SQLite file ${file}`, () => new (load('better-sqlite3') as typeof SQLite)(file, { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS }))
    conn.pragma('journal_mode = WAL')
    conn.pragma('synchronous = NORMAL')
    // Waiting for another process's write lock blocks this process (better-sqlite3 is
    // synchronous), so the wait is bounded; past it the write answers 503.
    conn.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS))}`)
    conn.pragma('foreign_keys = ON')
    // Reads dominate: a 64 MiB page cache and memory-mapped reads keep hot pages out of syscalls.
    conn.pragma('cache_size = -65536')
    conn.pragma('mmap_size = 268435456')
    return conn
  }
  const conn = open()
  const db: Db = new Kysely({ dialect: new SqliteDialect({ database: withStatementCache(conn) }) })
  // Hot reads go through the writing connection whenever it has no transaction open: its own
  // commits leave its page cache and memory map as they are, where any other connection's
  // commit empties them (a reading connection of its own lost both at every bookkeeping
  // commit: a distinct entries page's statement took 0.080 ms instead of 0.070, see
  // docs/decisions.md, "Reads on the writing connection"). While a write transaction is open (Kysely
  // holds it across awaits) a read there would see its uncommitted rows, so it goes to a
  // second connection. An in-memory database exists once per connection, so it has one.
  let reader: SQLite.Database | undefined
  const readConnection = () => {
    if (memory) return conn
    if (!reader) {
      reader = open()
      reader.pragma('query_only = ON')
    }
    return reader
  }
  const onWriter = new Map<string, SQLite.Statement>()
  const onReader = new Map<string, SQLite.Statement>()
  let dataVersion: SQLite.Statement | undefined
  return {
    db, adapter: sqliteAdapter, url,
    async read(text, params) {
      const writing = conn.inTransaction
      const statements = writing ? onReader : onWriter
      let statement = statements.get(text)
      if (!statement) {
        if (statements.size >= 2000) statements.clear()
        statement = (writing ? readConnection() : conn).prepare(text).raw(true)
        statements.set(text, statement)
      }
      return statement.all(...params) as unknown[][]
    },
    // Read on the second connection, whose number changes with every other connection's
    // commit: this process's writes too (the writing connection's own number does not; in
    // memory the content store counts those).
    // A prepared statement: conn.pragma() would prepare it again on every request.
    dataVersion: () => {
      const c = readConnection()
      if (!c.open) return -1
      dataVersion ??= c.prepare('PRAGMA data_version').pluck()
      return dataVersion.get() as number
    },
    async close() {
      await db.destroy()
      reader?.close()
    },
  }
}

/**
 * Kysely prepares a statement for every query; preparing costs as much as running a
 * page query, so statements are kept per SQL text. Reuse is safe: better-sqlite3 runs
 * each statement to completion synchronously (we never stream).
 */
function withStatementCache(conn: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>()
  return new Proxy(conn, {
    get(target, prop) {
      if (prop === 'prepare') {
        return (sqlText: string) => {
          // Write transactions take SQLite's write lock at BEGIN (waiting up to busy_timeout)
          // rather than at their first write, where a second process's commit would make
          // them fail with SQLITE_BUSY_SNAPSHOT instead of waiting.
          const text = sqlText === 'begin' ? 'begin immediate' : sqlText
          // SQLite ends the transaction itself on some errors (SQLITE_FULL, SQLITE_IOERR,
          // SQLITE_NOMEM); Kysely's ROLLBACK would then fail with "cannot rollback - no
          // transaction is active" and that error would replace the one that says why.
          if (text === 'rollback' && !target.inTransaction) return noRollback(target)
          let statement = cache.get(text)
          if (!statement) {
            if (cache.size >= 2000) cache.clear()
            statement = target.prepare(text)
            cache.set(text, statement)
          }
          return statement
        }
      }
      const value = Reflect.get(target, prop, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** A statement that reads nothing: the ROLLBACK of a transaction SQLite already rolled back. */
const nothing = new WeakMap<SQLite.Database, SQLite.Statement>()
function noRollback(conn: SQLite.Database): SQLite.Statement {
  let statement = nothing.get(conn)
  if (!statement) {
    statement = conn.prepare('SELECT 1 WHERE 0')
    nothing.set(conn, statement)
  }
  return statement
}
