// Opens the store on SQLite (embedded default) or PostgreSQL. Dialect differences are
// flags and small SQL fragments on one adapter, not `if (pg)` scattered through the code.
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import pg from 'pg'
import { Kysely, PostgresDialect, SqliteDialect, sql, type RawBuilder } from 'kysely'

// Kysely<any>: tables are derived from resource declarations at run time, so a static
// database interface would be written twice. Row shapes are typed where they are read.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Db = Kysely<any>

export type DialectName = 'sqlite' | 'postgres'

export interface DialectAdapter {
  readonly name: DialectName
  /** SQL type of the stored document column. */
  readonly jsonType: string
  readonly idColumnType: string
  readonly booleanType: string
  readonly bigintType: string
  /** Serialises a boolean for a column (SQLite has no booleans). */
  bool(v: boolean): boolean | number
  /** The document as JSON text, ready to splice into a response without parsing. */
  docText(column: string): RawBuilder<string>
  /** JSON text of the value at a path (`"abc"`, `12`, `true`), or NULL. */
  jsonAt(column: string, path: readonly string[]): RawBuilder<string | null>
  /** The scalar at a path as plain text (strings unquoted), or NULL. */
  textAt(column: string, path: readonly string[]): RawBuilder<string | null>
  /** Case-insensitive LIKE. */
  ilike(expr: RawBuilder<unknown>, pattern: string): RawBuilder<boolean>
  /** EXISTS over the elements of an array at `path`, testing `test(elementRef)`. */
  anyElement(column: string, path: readonly string[], test: (element: string) => RawBuilder<boolean>): RawBuilder<boolean>
  /** JSON text of the value at `path` inside an `anyElement` element (`[]`: the element itself). */
  elementJsonAt(element: string, path: readonly string[]): RawBuilder<string | null>
  /** Plain text of the scalar at `path` inside an `anyElement` element. */
  elementTextAt(element: string, path: readonly string[]): RawBuilder<string | null>
  /** `textAt(column, path) = value`, with the value typed as the engine compares it. */
  textAtEquals(column: string, path: readonly string[], value: unknown): RawBuilder<boolean>
  /**
   * Whether reads in a write transaction can lock rows (`FOR UPDATE`). SQLite needs none:
   * its write transactions hold the database's write lock from BEGIN.
   */
  readonly rowLocks: boolean
  /** `FOR UPDATE SKIP LOCKED` where rows can be claimed apart, else nothing. */
  readonly skipLocked: RawBuilder<unknown>
  /** Takes a transaction-scoped lock on `key` (serialises writers across processes); SQLite: nothing to do. */
  transactionLock(tx: Db, key: number): Promise<void>
  /** The next `n` ids of `table`, taken before insert so each document is written once. */
  allocateIds(tx: Db, table: string, n: number): Promise<number[]>
  /** Columns of the unique constraint `err` violated on `table`, or undefined for other errors. */
  uniqueViolation(err: unknown, table: string): string[] | undefined
}

export interface Database {
  readonly db: Db
  readonly adapter: DialectAdapter
  readonly url: string
  /**
   * SQLite only: a number that changes when another connection (another process) commits.
   * Writes through this connection are counted by the content store instead.
   */
  readonly dataVersion?: () => number
  close(): Promise<void>
}

// pg returns BIGINT as strings by default; ids and millisecond timestamps fit in a double.
pg.types.setTypeParser(20, (v: string) => Number(v))

const jsonPath = (path: readonly string[]) => '$' + path.map((p) => `."${p.replace(/"/g, '')}"`).join('')
const pgPath = (path: readonly string[]) => `{${path.map((p) => `"${p.replace(/["{},]/g, '')}"`).join(',')}}`

const sqliteAdapter: DialectAdapter = {
  name: 'sqlite',
  jsonType: 'text',
  idColumnType: 'integer primary key autoincrement',
  booleanType: 'integer',
  bigintType: 'integer',
  bool: (v) => (v ? 1 : 0),
  docText: (column) => sql<string>`${sql.ref(column)}`,
  jsonAt: (column, path) => sql<string | null>`(${sql.ref(column)} -> ${jsonPath(path)})`,
  textAt: (column, path) => sql<string | null>`(${sql.ref(column)} ->> ${jsonPath(path)})`,
  ilike: (expr, pattern) => sql<boolean>`(${expr} LIKE ${pattern} ESCAPE '\\')`,
  anyElement: (column, path, test) =>
    sql<boolean>`EXISTS (SELECT 1 FROM json_each(${sql.ref(column)}, ${jsonPath(path)}) AS el WHERE ${test('el.value')})`,
  // json_each's value is the SQL value for scalars and JSON text for objects and arrays.
  elementJsonAt: (element, path) => path.length === 0
    ? sql<string | null>`(CASE WHEN el.type = 'text' THEN json_quote(${sql.raw(element)}) WHEN el.type = 'true' THEN 'true' WHEN el.type = 'false' THEN 'false' ELSE ${sql.raw(element)} END)`
    : sql<string | null>`(${sql.raw(element)} -> ${jsonPath(path)})`,
  elementTextAt: (element, path) => path.length === 0 ? sql<string | null>`${sql.raw(element)}` : sql<string | null>`(${sql.raw(element)} ->> ${jsonPath(path)})`,
  // ->> yields the SQL value (an integer stays an integer).
  textAtEquals: (column, path, value) => sql<boolean>`(${sql.ref(column)} ->> ${jsonPath(path)}) = ${value}`,
  rowLocks: false,
  skipLocked: sql``,
  transactionLock: async () => {},
  async allocateIds(tx, table, n) {
    // One writer at a time, so the next ids are known; sqlite_sequence keeps deleted ids from being reused.
    const { rows } = await sql<{ top: number }>`SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = ${table}), 0), COALESCE((SELECT MAX(id) FROM ${sql.table(table)}), 0)) AS top`.execute(tx)
    const top = Number(rows[0]?.top ?? 0)
    return Array.from({ length: n }, (_, i) => top + 1 + i)
  },
  uniqueViolation(err) {
    const e = err as { code?: string; message?: string } | null
    if (e?.code !== 'SQLITE_CONSTRAINT_UNIQUE' && e?.code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return undefined
    // "UNIQUE constraint failed: entries.section, entries.slug"
    return String(e.message).replace(/^.*failed: /, '').split(',').map((c) => c.trim().split('.')[1] ?? c.trim())
  },
}

const postgresAdapter: DialectAdapter = {
  name: 'postgres',
  // json (not jsonb) keeps the stored text as written: documents go out in declared key
  // order with no jsonb-to-text conversion on the hot read path.
  jsonType: 'json',
  idColumnType: 'bigserial primary key',
  booleanType: 'boolean',
  bigintType: 'bigint',
  bool: (v) => v,
  docText: (column) => sql<string>`${sql.ref(column)}::text`,
  jsonAt: (column, path) => sql<string | null>`((${sql.ref(column)} #> ${pgPath(path)})::text)`,
  textAt: (column, path) => sql<string | null>`(${sql.ref(column)} #>> ${pgPath(path)})`,
  ilike: (expr, pattern) => sql<boolean>`(${expr} ILIKE ${pattern} ESCAPE '\\')`,
  anyElement: (column, path, test) =>
    sql<boolean>`EXISTS (SELECT 1 FROM json_array_elements(CASE WHEN json_typeof(${sql.ref(column)} #> ${pgPath(path)}) = 'array' THEN ${sql.ref(column)} #> ${pgPath(path)} ELSE '[]'::json END) AS el(value) WHERE ${test('el.value')})`,
  elementJsonAt: (element, path) => sql<string | null>`((${sql.raw(element)} #> ${pgPath(path)})::text)`,
  elementTextAt: (element, path) => sql<string | null>`(${sql.raw(element)} #>> ${pgPath(path)})`,
  // #>> yields text: compare with the value's text.
  textAtEquals: (column, path, value) => sql<boolean>`(${sql.ref(column)} #>> ${pgPath(path)}) = ${String(value)}`,
  rowLocks: true,
  skipLocked: sql`FOR UPDATE SKIP LOCKED`,
  async transactionLock(tx, key) {
    await sql`SELECT pg_advisory_xact_lock(${key})`.execute(tx)
  },
  async allocateIds(tx, table, n) {
    const { rows } = await sql<{ id: number }>`SELECT nextval(pg_get_serial_sequence(${table}, 'id'))::bigint AS id FROM generate_series(1, ${n})`.execute(tx)
    return rows.map((x) => Number(x.id))
  },
  uniqueViolation(err, table) {
    const e = err as { code?: string; constraint?: string; detail?: string } | null
    if (e?.code !== '23505') return undefined
    // Constraint names are `<table>_<column>_unique` (or `<table>_pkey`/`_uid_key`); the detail names every column.
    const fromDetail = /^Key \(([^)]*)\)=/.exec(e.detail ?? '')?.[1]
    if (fromDetail) return fromDetail.split(',').map((c) => c.trim().replace(/"/g, ''))
    return e.constraint ? [e.constraint.replace(`${table}_`, '').replace(/_unique$|_key$/, '')] : []
  },
}

export function openDatabase(url: string, options: { poolSize?: number; schema?: string } = {}): Database {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length) || ':memory:'
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
    const conn = new SQLite(file)
    conn.pragma('journal_mode = WAL')
    conn.pragma('synchronous = NORMAL')
    conn.pragma('busy_timeout = 5000')
    conn.pragma('foreign_keys = ON')
    // Reads dominate: a 64 MiB page cache and memory-mapped reads keep hot pages out of syscalls.
    conn.pragma('cache_size = -65536')
    conn.pragma('mmap_size = 268435456')
    const dataVersion = conn.prepare('PRAGMA data_version').pluck()
    const db: Db = new Kysely({ dialect: new SqliteDialect({ database: withStatementCache(conn) }) })
    return {
      db, adapter: sqliteAdapter, url,
      // A prepared statement: conn.pragma() would prepare it again on every request.
      dataVersion: () => (conn.open ? (dataVersion.get() as number) : -1),
      close: () => db.destroy(),
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // Tests isolate themselves in a schema of their own.
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  })
  // An idle client error (server restart) must not crash the process; queries report it.
  pool.on('error', () => {})
  const db: Db = new Kysely({ dialect: new PostgresDialect({ pool }) })
  return { db, adapter: postgresAdapter, url, close: () => db.destroy() }
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

/** snake_case column name of a document property. */
export const columnName = (property: string) => property.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())
