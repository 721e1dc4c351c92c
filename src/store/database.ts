// Opens the store on SQLite (embedded default) or PostgreSQL. Dialect differences are
// flags and small SQL fragments on one adapter, not `if (pg)` scattered through the code.
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { createRequire } from 'node:module'
import type SQLite from 'better-sqlite3'
import type pg from 'pg'
import { Kysely, PostgresDialect, SqliteDialect, sql, type PostgresPool, type PostgresPoolClient, type RawBuilder } from 'kysely'
import { QueryWatch } from './query-watch.js'

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
  /** SQL type of a floating-point column. */
  readonly doubleType: string
  /**
   * Whether families get the search indexes (PostgreSQL: GIN on the document as jsonb and
   * trigram indexes on search columns; src/store/declared-schema.ts). SQLite has neither.
   */
  readonly searchIndexes: boolean
  /**
   * Inside a transaction: makes sure an extension is installed and returns its schema
   * (PostgreSQL; a new one goes in `public` when that exists, so no test schema drops it).
   */
  ensureExtension(tx: Db, name: string): Promise<string | undefined>
  /**
   * The document column `ref` as the search index and `jsonContains` read it: jsonb, through
   * a function that replaces what jsonb cannot hold (the escape of a lone surrogate or of
   * U+0000, which older rows may have) so that neither the index nor a query fails on a row.
   */
  searchDocument(ref: string): string
  /** Inside a transaction: creates (or updates) the function `searchDocument` calls. */
  ensureSearchDocument(tx: Db): Promise<void>
  /** Serialises a boolean for a column (SQLite has no booleans). */
  bool(v: boolean): boolean | number
  /** The document as JSON text, ready to splice into a response without parsing. */
  docText(column: string): RawBuilder<string>
  // SQL text fragments of the hot read path (src/store/record-query.ts builds its
  // statements as text, prepared once per shape). `ref` is a column reference (`t.doc`);
  // paths are written into the text as literals, so expression indexes can match them.
  /** Placeholder of the n-th (1-based) parameter: `?` or `$n`. */
  param(n: number): string
  /** The document column as JSON text. */
  docSql(ref: string): string
  /** JSON text of the value at a path (`"abc"`, `12`, `true`), or NULL. */
  jsonAt(ref: string, path: readonly string[]): string
  /** The scalar at a path as plain text (strings unquoted), or NULL. */
  textAt(ref: string, path: readonly string[]): string
  /** Case-insensitive LIKE of `expr` against the pattern parameter `placeholder`. */
  ilike(expr: string, placeholder: string): string
  /**
   * A SELECT of `columns` from `change_log c`: the rows of these types after a position (and
   * meeting the conditions `more`, `' AND …'`), the first `limit` in sequence order, written so
   * that it reads about `limit` rows of the (resource_type, seq) index whatever the types.
   * SQLite gets an IN list: it walks each type's index range in order and leaves it once the
   * page is full. PostgreSQL reads a bounded range of the log's next positions when that holds
   * a whole page, and otherwise each type's page as a range, merged: left to choose, with an
   * equality or an IN list it walks the primary key unbounded when it thinks a type is spread
   * evenly through the log, reading every later change of the other types (14 ms a page
   * mid-log on the bench data). PostgreSQL's text may use a placeholder more than once, and
   * its two forms are joined by UNION ALL without an outer ORDER BY: callers order the rows.
   */
  changesOfTypesAfter(columns: string, typeLiterals: readonly string[], seqPlaceholder: string, more: string, limit: number): string
  /**
   * Whether change-feed pages are best written by the database (`readRenderedChangePage`):
   * measured on the bench's walk of distinct `/changes?limit=200` pages.
   */
  readonly rendersChangePages: boolean
  /**
   * ISO 8601 text of a millisecond timestamp as `Date#toISOString` writes it
   * (`2024-05-01T12:00:00.000Z`), for timestamps from 1970 to 9999.
   */
  isoOfMs(expr: string): string
  /** The non-null values of `expr` joined by commas in the order of `orderBy` (an aggregate). */
  joinInOrder(expr: string, orderBy: string): string
  /** Whether the text of `ref` (a document column) holds the text parameter `placeholder` (case-sensitive). */
  textContainsSql(ref: string, placeholder: string): string
  /** Whether a text column contains `text` exactly (case-sensitive, no wildcards; Kysely reads). */
  contains(column: string, text: string): RawBuilder<boolean>
  /** EXISTS over the elements of an array at `path`, testing `test(elementRef)`. */
  anyElement(ref: string, path: readonly string[], test: (element: string) => string): string
  /** JSON text of the value at `path` inside an `anyElement` element (`[]`: the element itself). */
  elementJsonAt(element: string, path: readonly string[]): string
  /** Plain text of the scalar at `path` inside an `anyElement` element. */
  elementTextAt(element: string, path: readonly string[]): string
  /**
   * `ref` (a JSON document column) contains the JSON document in `placeholder` (PostgreSQL
   * `jsonb @>`, which the GIN index on the document answers); undefined where the engine
   * has no such operator and path tests are used instead.
   */
  readonly jsonContains?: (ref: string, placeholder: string) => string
  /**
   * `ref` contains any of the JSON documents in the array parameter `placeholder`, the
   * document converted once (`jsonContains` of each converts it each time). No index answers
   * it: it tests rows another index found (a list driven by a term).
   */
  readonly jsonContainsAny?: (ref: string, placeholder: string) => string
  /**
   * FROM-clause text: for each row of `outer`, in its order, the rows of `table` aliased
   * `alias` meeting `where` (which refers to the outer row), as an inner join the planner may
   * not turn around: PostgreSQL, a LATERAL subquery of `columns` kept apart by OFFSET 0 (it
   * would otherwise drive from the document's GIN index and sort every match); SQLite, a
   * CROSS JOIN (which keeps the written order).
   */
  joinEach(outer: string, table: string, alias: string, columns: string, where: string): string
  /** Inside a write transaction: tells other processes, at commit, that content changed (PostgreSQL NOTIFY). */
  notifyChange(tx: Db, payload: string): Promise<void>
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
  /** Every table of the connected schema with its columns and indexes, sorted by name. */
  describeTables(db: Db, only?: readonly string[]): Promise<TableInfo[]>
  /**
   * The database cannot be reached, dropped the connection, or did not answer within the
   * connect, query or busy timeout: the request is answered 503 SERVICE_UNAVAILABLE.
   */
  isUnavailable(err: unknown): boolean
  /** A deadlock or serialization failure (PostgreSQL), a stale snapshot (SQLite): safe to retry. */
  isWriteConflict(err: unknown): boolean
  /** A unique or primary-key constraint refused the row. */
  isUniqueViolation(err: unknown): boolean
  /** The table read does not exist (an older schema). */
  isMissingTable(err: unknown): boolean
}

/** What the database says a table is (schema reconciliation and the schema snapshot test). */
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

/** Bounds on waiting for the database (docs/configuration.md: database timeouts). */
export interface DatabaseOptions {
  /** PostgreSQL pool size (default 10). */
  readonly poolSize?: number
  /** PostgreSQL schema to use (tests isolate themselves in one). */
  readonly schema?: string
  /** PostgreSQL: longest wait for a new connection, TCP and start-up handshake (default 5000 ms). */
  readonly connectTimeoutMs?: number
  /**
   * PostgreSQL: longest a statement may run (server-side statement_timeout); the client gives
   * up on an answer a second after it (a server that stopped answering). Off by default:
   * migrations, seeds and imports may run long; the server sets it from settings.
   */
  readonly queryTimeoutMs?: number
  /** SQLite: longest wait for another connection's write lock (default 5000 ms). */
  readonly busyTimeoutMs?: number
  /** Called with errors of idle or checked-out PostgreSQL connections (logged; never thrown). */
  readonly onConnectionError?: (err: Error) => void
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5000
export const DEFAULT_BUSY_TIMEOUT_MS = 5000

export interface Database {
  readonly db: Db
  readonly adapter: DialectAdapter
  readonly url: string
  /**
   * The hot read path: runs a read-only statement and returns rows as arrays. Statements
   * are prepared once per SQL text (`prepare: false` for texts with user-chosen parts, or
   * whose best plan depends on a parameter's value: PostgreSQL then plans each call).
   * SQLite reads through a connection of their own, so they see committed data only and
   * never wait behind a write transaction on the writing connection.
   *
   * `generic`: a prepared statement whose plan the text fixes whatever the values (a list
   * driven by a term). PostgreSQL runs it with its generic plan on connections of their own
   * (plan_cache_mode applies to every statement of a connection, unnamed ones included):
   * left to choose, it kept planning such a statement for every call when the values' row
   * estimates fell under the LIMIT, 170 µs of its CPU a page.
   */
  read(text: string, params: readonly unknown[], opts?: { readonly prepare?: boolean; readonly generic?: boolean }): Promise<unknown[][]>
  /**
   * SQLite only: a number that changes when another connection (another process) commits.
   * Writes through this connection are counted by the content store instead.
   */
  readonly dataVersion?: () => number
  /**
   * PostgreSQL only: listens for content changes committed by any process (`notifyChange`).
   * `onState(true)` once listening (again, after a lost connection is re-established: changes
   * in between were missed), `onState(false)` while not. Resolves to a function that stops.
   */
  readonly listen?: (onChange: (payload: string) => void, onState: (listening: boolean) => void) => Promise<() => Promise<void>>
  close(): Promise<void>
}

// Each driver is loaded when a database of its kind is opened: a process needs one of them,
// and each costs a few MB of memory.
const load = createRequire(import.meta.url)
let pgModule: typeof pg | undefined
function loadPg(): typeof pg {
  if (!pgModule) {
    pgModule = load('pg') as typeof pg
    // pg returns BIGINT as strings by default; ids and millisecond timestamps fit in a double.
    pgModule.types.setTypeParser(20, (v: string) => Number(v))
  }
  return pgModule
}

const code = (err: unknown) => (err as { code?: unknown } | null)?.code
const message = (err: unknown) => String((err as { message?: unknown } | null)?.message ?? '')

// Both engines: Kysely after destroy().
const DESTROYED = /driver has already been destroyed/i

const SQLITE_UNAVAILABLE = /^SQLITE_(CANTOPEN|NOTADB|IOERR|BUSY$|BUSY_RECOVERY|BUSY_TIMEOUT|CORRUPT|FULL|READONLY_DBMOVED)/

// Node's socket errors, PostgreSQL's connection-exception class 08, operator intervention
// (class 57P: shutdown, crash, cannot connect now, database dropped, idle session timeout),
// too many connections (53300), statement_timeout (57014), and the messages pg and pg-pool
// give when a connection drops or a timeout expires.
const PG_UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', '53300', '57014'])
const PG_UNAVAILABLE_CLASS = /^(08|57P)/
// 55000 (object not in prerequisite state) is an outage only when a connection is refused
// ("database … is not currently accepting connections", ALLOW_CONNECTIONS false): the same
// code also names programming errors (currval before nextval…), which stay 500s.
const PG_REFUSING = (err: unknown) => code(err) === '55000' && /accepting connections/i.test(message(err))
const PG_UNAVAILABLE_MESSAGES = /(Connection terminated|timeout expired|Query read timeout|Cannot use a pool after calling end|not queryable|connection error|Client was closed)/i

// Paths as SQL string literals (their parts are field names, checked where they are parsed;
// quotes are stripped all the same), so the text names them and expression indexes match.
const quote = (text: string) => `'${text.replace(/'/g, "''")}'`
const jsonPathText = (path: readonly string[]) => '$' + path.map((p) => `."${p.replace(/"/g, '')}"`).join('')
const jsonPath = (path: readonly string[]) => quote(jsonPathText(path))
const pgPathText = (path: readonly string[]) => `{${path.map((p) => `"${p.replace(/["{},]/g, '')}"`).join(',')}}`
const pgPath = (path: readonly string[]) => quote(pgPathText(path))

/**
 * How many positions of the change log (in pages) PostgreSQL reads in sequence order before it
 * reads each type's range instead: a page of types making up a quarter of the log or more
 * comes from that one range.
 */
const LOG_WINDOW = 4

/** NOTIFY channel of content changes: this prefix and the schema name. */
const CHANNEL_PREFIX = 'gatehouse_changes_'

const sqliteAdapter: DialectAdapter = {
  name: 'sqlite',
  jsonType: 'text',
  idColumnType: 'integer primary key autoincrement',
  booleanType: 'integer',
  bigintType: 'integer',
  bool: (v) => (v ? 1 : 0),
  docText: (column) => sql<string>`${sql.ref(column)}`,
  param: () => '?',
  docSql: (ref) => ref,
  jsonAt: (ref, path) => `(${ref} -> ${jsonPath(path)})`,
  textAt: (ref, path) => `(${ref} ->> ${jsonPath(path)})`,
  ilike: (expr, placeholder) => `(${expr} LIKE ${placeholder} ESCAPE '\\')`,
  textContainsSql: (ref, placeholder) => `(instr(${ref}, ${placeholder}) > 0)`,
  joinEach: (outer, table, alias, _columns, where) => `${outer} CROSS JOIN ${table} ${alias} ON ${where}`,
  // In process, the documents are already strings in the engine's memory; SQLite's text
  // concatenation copies each of them several times: 600 pages/s rendered here, 443 by SQLite.
  rendersChangePages: false,
  // Whole seconds by strftime, milliseconds padded by hand (integer arithmetic, no rounding).
  isoOfMs: (expr) => `(strftime('%Y-%m-%dT%H:%M:%S', ${expr} / 1000, 'unixepoch') || '.' || substr('00' || (${expr} % 1000), -3) || 'Z')`,
  joinInOrder: (expr, orderBy) => `group_concat(${expr}, ',' ORDER BY ${orderBy})`,
  // INDEXED BY: with statistics (after an ANALYZE) SQLite may walk the primary key instead,
  // which reads every later change of the other types when the page's types are rare.
  changesOfTypesAfter: (columns, types, seq, more, limit) =>
    `SELECT ${columns} FROM change_log c INDEXED BY change_log_type_seq WHERE c.resource_type IN (${types.join(', ')}) AND c.seq > ${seq}${more} ORDER BY c.seq LIMIT ${limit}`,
  anyElement: (ref, path, test) => `EXISTS (SELECT 1 FROM json_each(${ref}, ${jsonPath(path)}) AS el WHERE ${test('el.value')})`,
  contains: (column, text) => sql<boolean>`(instr(${sql.ref(column)}, ${text}) > 0)`,
  // json_each's value is the SQL value for scalars (a number compares unequal to its text,
  // so it is quoted too) and JSON text for objects and arrays.
  elementJsonAt: (element, path) => path.length === 0
    ? `(CASE WHEN el.type = 'true' THEN 'true' WHEN el.type = 'false' THEN 'false' WHEN el.type IN ('object', 'array') THEN ${element} ELSE json_quote(${element}) END)`
    : `(${element} -> ${jsonPath(path)})`,
  elementTextAt: (element, path) => path.length === 0 ? element : `(${element} ->> ${jsonPath(path)})`,
  notifyChange: async () => {},
  // ->> yields the SQL value (an integer stays an integer).
  textAtEquals: (column, path, value) => sql<boolean>`(${sql.ref(column)} ->> ${jsonPathText(path)}) = ${value}`,
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
  doubleType: 'real',
  searchIndexes: false,
  ensureExtension: async () => undefined,
  searchDocument: (ref) => ref,
  ensureSearchDocument: async () => {},
  describeTables: describeSqliteTables,
  isUnavailable: (err) => SQLITE_UNAVAILABLE.test(String(code(err) ?? '')) || DESTROYED.test(message(err)) || /database connection is not open/i.test(message(err)),
  isWriteConflict: (err) => code(err) === 'SQLITE_BUSY_SNAPSHOT',
  isUniqueViolation: (err) => code(err) === 'SQLITE_CONSTRAINT_UNIQUE' || code(err) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
  isMissingTable: (err) => /no such table/i.test(message(err)),
}

/**
 * A stored document as PostgreSQL's JSON operators can read it. `#>` and `#>>` parse the
 * whole document and fail on the escape of a lone surrogate (`\ud800`) or of U+0000,
 * which writes refuse but older rows may hold: one such row made every filtered list that
 * scanned it fail. Those escapes are replaced by U+FFFD first, only in rows whose text has a
 * `\u` escape at all (JSON.stringify writes one only for control characters and lone
 * surrogates, never for a valid pair), so other rows cost one strpos.
 */
const PG_BAD_ESCAPE = '(?<!\\\\)((?:\\\\\\\\)*)\\\\u(?:[dD][89a-fA-F][0-9a-fA-F]{2}|0000)'
const pgReadable = (column: string) =>
  sql`(CASE WHEN strpos(${sql.ref(column)}::text, '\\u') = 0 THEN ${sql.ref(column)} ELSE regexp_replace(${sql.ref(column)}::text, ${PG_BAD_ESCAPE}, ${'\\1\uFFFD'}, 'g')::json END)`
/** The function the search index is built on (src/store/declared-schema.ts), per schema. */
const SEARCH_DOCUMENT = 'gatehouse_search_document'

/** The same, as SQL text of the hot read path (`ref` is a column reference such as `t.doc`). */
const pgReadableSql = (ref: string) =>
  `(CASE WHEN strpos(${ref}::text, '\\u') = 0 THEN ${ref} ELSE regexp_replace(${ref}::text, ${quote(PG_BAD_ESCAPE)}, ${quote('\\1\uFFFD')}, 'g')::json END)`

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
  param: (n) => `$${n}`,
  docSql: (ref) => `${ref}::text`,
  jsonAt: (ref, path) => `((${pgReadableSql(ref)} #> ${pgPath(path)})::text)`,
  textAt: (ref, path) => `(${pgReadableSql(ref)} #>> ${pgPath(path)})`,
  ilike: (expr, placeholder) => `(${expr} ILIKE ${placeholder} ESCAPE '\\')`,
  textContainsSql: (ref, placeholder) => `(strpos(${ref}::text, ${placeholder}) > 0)`,
  // 1,600 values a page (8 columns, 200 rows) cost more to receive, keep and collect than the
  // database spends writing one text: 300 pages/s rendered here, 418 by PostgreSQL.
  rendersChangePages: true,
  // Interval arithmetic in whole microseconds: exact, unlike to_timestamp(seconds).
  isoOfMs: (expr) => `to_char(TIMESTAMP '1970-01-01' + ${expr} * INTERVAL '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  joinInOrder: (expr, orderBy) => `string_agg(${expr}, ',' ORDER BY ${orderBy})`,
  // Two forms, chosen by PostgreSQL as it runs (one-time filters: the form not chosen is never
  // started). First the log's next positions (`LOG_WINDOW` pages' worth, one bounded range of
  // positions): when they hold a whole page of these types, as for a follower of most
  // types, that is the page (0.14 ms against 0.8 on the bench's log). Otherwise, for
  // types rare in the log, each type's page as a range of the (type, seq) index, merged.
  changesOfTypesAfter: (columns, types, seq, more, limit) => {
    const head = `SELECT ${columns} FROM change_log c WHERE c.seq > ${seq} AND c.seq <= ${seq} + ${LOG_WINDOW * limit} AND c.resource_type IN (${types.join(', ')})${more} ORDER BY c.seq LIMIT ${limit}`
    const page = (type: string, i: number) =>
      `SELECT * FROM (SELECT ${columns} FROM change_log c WHERE (c.resource_type, c.seq) > (${type}, ${seq}) AND c.resource_type <= ${type}${more} ORDER BY c.resource_type, c.seq LIMIT ${limit}) p${i}`
    const merged = `SELECT * FROM (${types.map(page).join(' UNION ALL ')}) c ORDER BY c.seq LIMIT ${limit}`
    return `WITH head AS MATERIALIZED (${head}) SELECT * FROM head WHERE (SELECT count(*) FROM head) = ${limit}`
      + ` UNION ALL SELECT * FROM (${merged}) m WHERE (SELECT count(*) FROM head) < ${limit}`
  },
  anyElement: (ref, path, test) =>
    `EXISTS (SELECT 1 FROM json_array_elements(CASE WHEN json_typeof(${pgReadableSql(ref)} #> ${pgPath(path)}) = 'array' THEN ${pgReadableSql(ref)} #> ${pgPath(path)} ELSE '[]'::json END) AS el(value) WHERE ${test('el.value')})`,
  elementJsonAt: (element, path) => `((${element} #> ${pgPath(path)})::text)`,
  elementTextAt: (element, path) => `(${element} #>> ${pgPath(path)})`,
  // The cast is what the GIN index is built on (declared in the family's table).
  jsonContains: (ref, placeholder) => `(${SEARCH_DOCUMENT}(${ref}) @> ${placeholder}::jsonb)`,
  // COALESCE (the function is STRICT and documents are never null) keeps the planner from
  // estimating the test against the GIN index's statistics of whole documents: 2 ms of
  // planning for each containment document, against 0.2 ms for the whole statement.
  jsonContainsAny: (ref, placeholder) => `(COALESCE(${SEARCH_DOCUMENT}(${ref}), '{}') @> ANY (${placeholder}::jsonb[]))`,
  joinEach: (outer, table, alias, columns, where) => `${outer} CROSS JOIN LATERAL (SELECT ${columns} FROM ${table} ${alias} WHERE ${where} OFFSET 0) ${alias}`,
  // Delivered at commit to every process listening on this schema's channel.
  async notifyChange(tx, payload) {
    await sql`SELECT pg_notify(${CHANNEL_PREFIX} || current_schema(), ${payload})`.execute(tx)
  },
  contains: (column, text) => sql<boolean>`(strpos(${sql.ref(column)}, ${text}) > 0)`,
  // #>> yields text: compare with the value's text.
  textAtEquals: (column, path, value) => sql<boolean>`(${pgReadable(column)} #>> ${pgPathText(path)}) = ${String(value)}`,
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
  doubleType: 'double precision',
  searchIndexes: true,
  searchDocument: (ref) => `${SEARCH_DOCUMENT}(${ref})`,
  async ensureSearchDocument(tx) {
    // IMMUTABLE (its result depends on its argument only), as an index expression must be.
    await sql.raw(`CREATE OR REPLACE FUNCTION ${SEARCH_DOCUMENT}(doc json) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
      SELECT (CASE WHEN strpos(doc::text, '\\u') = 0 THEN doc::text ELSE regexp_replace(doc::text, ${quote(PG_BAD_ESCAPE)}, ${quote('\\1\uFFFD')}, 'g') END)::jsonb
    $fn$`).execute(tx)
  },
  async ensureExtension(tx, name) {
    const where = async () => (await sql<{ schema: string }>`SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = ${name}`.execute(tx)).rows[0]?.schema
    const found = await where()
    if (found !== undefined) return found
    const { rows } = await sql<{ schema: string }>`SELECT COALESCE((SELECT nspname FROM pg_namespace WHERE nspname = 'public'), current_schema()) AS schema`.execute(tx)
    try {
      await sql.raw(`CREATE EXTENSION IF NOT EXISTS ${name} SCHEMA "${rows[0].schema.replace(/"/g, '""')}"`).execute(tx)
    } catch (err) {
      throw new Error(`the PostgreSQL extension ${name} is needed for search indexes and could not be created (${(err as Error).message}); have a superuser run CREATE EXTENSION ${name} in this database`, { cause: err })
    }
    return where()
  },
  describeTables: describePostgresTables,
  isUnavailable: (err) => PG_UNAVAILABLE_CODES.has(String(code(err) ?? '')) || PG_UNAVAILABLE_CLASS.test(String(code(err) ?? '')) || PG_REFUSING(err)
    || PG_UNAVAILABLE_MESSAGES.test(message(err)) || DESTROYED.test(message(err)),
  isWriteConflict: (err) => code(err) === '40P01' || code(err) === '40001',
  isUniqueViolation: (err) => code(err) === '23505',
  isMissingTable: (err) => code(err) === '42P01',
}

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim()

/** `AND <column> IN (…)` when only some tables are asked for. */
const onlyTables = (column: string, only: readonly string[] | undefined) =>
  only === undefined ? sql`` : only.length === 0 ? sql` AND 1 = 0` : sql` AND ${sql.ref(column)} IN (${sql.join(only)})`

async function describeSqliteTables(db: Db, only?: readonly string[]): Promise<TableInfo[]> {
  const { rows: cols } = await sql<{ tbl: string; name: string; type: string; nn: number; dflt: string | null; pk: number; ddl: string }>`
    SELECT m.name AS tbl, p.name, p.type, p."notnull" AS nn, p.dflt_value AS dflt, p.pk, m.sql AS ddl
    FROM sqlite_master m JOIN pragma_table_info(m.name) p
    WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'${onlyTables('m.name', only)} ORDER BY m.name, p.cid`.execute(db)
  const { rows: idx } = await sql<{ tbl: string; idx: string; uniq: number; col: string | null; ddl: string | null }>`
    SELECT m.name AS tbl, il.name AS idx, il."unique" AS uniq, ii.name AS col, s.sql AS ddl
    FROM sqlite_master m JOIN pragma_index_list(m.name) il JOIN pragma_index_info(il.name) ii
    LEFT JOIN sqlite_master s ON s.type = 'index' AND s.name = il.name
    WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'${onlyTables('m.name', only)} ORDER BY m.name, il.name, ii.seqno`.execute(db)
  return assembleTables(
    cols.map((c) => ({ table: c.tbl, column: { name: c.name, type: c.type.toLowerCase(), notNull: c.nn === 1, defaultValue: c.dflt, primaryKey: c.pk > 0, autoIncrement: c.pk > 0 && /\bautoincrement\b/i.test(c.ddl) } })),
    idx.map((i) => ({ table: i.tbl, index: i.idx, unique: i.uniq === 1, method: 'btree', column: i.col ?? '', where: /\sWHERE\s([\s\S]*)$/i.exec(i.ddl ?? '')?.[1] ?? null })),
  )
}

async function describePostgresTables(db: Db, only?: readonly string[]): Promise<TableInfo[]> {
  const { rows: cols } = await sql<{ tbl: string; name: string; type: string; notnull: boolean; dflt: string | null }>`
    SELECT c.relname AS tbl, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull,
      pg_get_expr(d.adbin, d.adrelid) AS dflt
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
    WHERE n.nspname = current_schema() AND c.relkind = 'r'${onlyTables('c.relname', only)} ORDER BY c.relname, a.attnum`.execute(db)
  const { rows: idx } = await sql<{ tbl: string; idx: string; uniq: boolean; pk: boolean; col: string; pred: string | null; method: string }>`
    SELECT t.relname AS tbl, i.relname AS idx, x.indisunique AS uniq, x.indisprimary AS pk,
      pg_get_indexdef(x.indexrelid, k.n, true) AS col, pg_get_expr(x.indpred, x.indrelid) AS pred, am.amname AS method
    FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_am am ON am.oid = i.relam
    JOIN pg_namespace n ON n.oid = t.relnamespace
    CROSS JOIN LATERAL generate_series(1, x.indnkeyatts) AS k(n)
    WHERE n.nspname = current_schema() AND t.relkind = 'r'${onlyTables('t.relname', only)} ORDER BY t.relname, i.relname, k.n`.execute(db)
  const primary = new Set(idx.filter((i) => i.pk).map((i) => `${i.tbl}.${i.col}`))
  return assembleTables(
    cols.map((c) => ({ table: c.tbl, column: { name: c.name, type: c.type.toLowerCase(), notNull: c.notnull, defaultValue: c.dflt, primaryKey: primary.has(`${c.tbl}.${c.name}`), autoIncrement: (c.dflt ?? '').startsWith('nextval(') } })),
    idx.map((i) => ({ table: i.tbl, index: i.idx, unique: i.uniq, method: i.method, column: i.col.replace(/^"(.*)"$/, '$1'), where: i.pred })),
  )
}

function assembleTables(
  cols: readonly { table: string; column: ColumnInfo }[],
  idx: readonly { table: string; index: string; unique: boolean; method: string; column: string; where: string | null }[],
): TableInfo[] {
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

export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  if (url.startsWith('sqlite:')) return openSqlite(url, options)
  const queryTimeout = options.queryTimeoutMs
  const config: pg.PoolConfig = {
    connectionString: url,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    // A dead peer on an idle connection is noticed by the kernel, not only by the next query.
    keepAlive: true,
    // Tests isolate themselves in a schema of their own.
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  }
  const poolConfig: pg.PoolConfig = {
    ...config,
    max: options.poolSize ?? 10,
    // The server cancels a long statement; the client stops waiting a second later, for a
    // server that no longer answers at all (black-holed network): see QueryWatch.
    ...(queryTimeout !== undefined && queryTimeout > 0 ? { statement_timeout: queryTimeout } : {}),
  }
  const pool = new (loadPg().Pool)(poolConfig)
  // Reads whose plan the text fixes (`generic`), on connections that always use it: a few,
  // made on first use. Set by a statement, not a start-up option, which a connection string's
  // own `options` would replace and PgBouncer refuses; where the setting is unknown (before
  // PostgreSQL 12) the reads still run, planned per call. A read on a new connection waits
  // for that statement instead of being sent while it runs (pg deprecates a query sent on a
  // busy connection); it waits under the read's own watch, so a connection gone silent there
  // fails the read like any other.
  const generic = new (loadPg().Pool)({ ...poolConfig, max: Math.max(2, Math.ceil((options.poolSize ?? 10) / 2)) })
  const settingUp = new WeakMap<pg.PoolClient, Promise<unknown>>()
  generic.on('connect', (client) => { settingUp.set(client, client.query('SET plan_cache_mode = force_generic_plan').catch(() => {})) })
  const watch = queryTimeout !== undefined && queryTimeout > 0 ? new QueryWatch(queryTimeout + 1000) : undefined
  const onError = (err: Error) => options.onConnectionError?.(err)
  // A connection that drops (server restart, network cut) emits 'error' on its client, idle
  // or checked out; unhandled, that event would end the process. The query running on it
  // fails with the same error and is answered 503; the pool replaces the connection.
  for (const p of [pool, generic]) {
    p.on('error', onError)
    p.on('connect', (client) => { client.on('error', onError) })
  }
  const db: Db = new Kysely({ dialect: new PostgresDialect({ pool: discardingBrokenClients(pool, watch) }) })
  // Named statements are parsed and planned once per connection. Names are never reused
  // for another text (a connection keeps what it prepared under a name); past the cap,
  // further texts run unnamed.
  const names = new Map<string, string>()
  return {
    db, adapter: postgresAdapter, url,
    async read(text, params, opts) {
      const query: pg.QueryArrayConfig = { text, values: params as unknown[], rowMode: 'array' }
      if (opts?.prepare !== false) {
        let name = names.get(text)
        if (name === undefined && names.size < 2000) names.set(text, (name = `gh_${names.size + 1}`))
        if (name !== undefined) query.name = name
      }
      return new Promise((resolve, reject) => {
        (opts?.generic && query.name !== undefined ? generic : pool).connect((connectError, client, release) => {
          if (connectError || !client) return reject(connectError)
          watch?.started(client)
          const send = () => client.query(query, (err: Error | null, result: pg.QueryArrayResult) => {
            watch?.ended(client)
            // A client whose query failed for another reason than the server's own error
            // reply (a dropped or silent connection) is discarded, not handed out again.
            release(err && !(err instanceof loadPg().DatabaseError) ? err : undefined)
            if (err) reject(err)
            else resolve(result.rows)
          })
          const setting = settingUp.get(client)
          if (setting === undefined) return send()
          settingUp.delete(client)
          void setting.then(send)
        })
      })
    },
    // Named, so operators can tell it from pooled connections in pg_stat_activity.
    listen: (onChange, onState) => listenForChanges({ ...config, keepAlive: true, application_name: 'gatehouse change listener' }, onChange, onState),
    close: async () => {
      watch?.close()
      await Promise.all([db.destroy(), generic.ending ? undefined : generic.end()])
    },
  }
}

function openSqlite(url: string, options: DatabaseOptions): Database {
  const file = url.slice('sqlite:'.length) || ':memory:'
  const memory = file === ':memory:'
  if (!memory) mkdirSync(dirname(file), { recursive: true })
  const open = () => {
    const conn = new (load('better-sqlite3') as typeof SQLite)(file, { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS })
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
  // Hot reads go through a second connection: on the writing one they would see a write
  // transaction's uncommitted rows between its awaits (Kysely holds that connection for the
  // whole transaction). An in-memory database exists once per connection, so it has one.
  let reader: SQLite.Database | undefined
  const readConnection = () => {
    if (memory) return conn
    if (!reader) {
      reader = open()
      reader.pragma('query_only = ON')
    }
    return reader
  }
  const statements = new Map<string, SQLite.Statement>()
  let dataVersion: SQLite.Statement | undefined
  return {
    db, adapter: sqliteAdapter, url,
    async read(text, params) {
      let statement = statements.get(text)
      if (!statement) {
        if (statements.size >= 2000) statements.clear()
        statement = readConnection().prepare(text).raw(true)
        statements.set(text, statement)
      }
      return statement.all(...params) as unknown[][]
    },
    // Read on the reading connection, whose number changes with every other connection's
    // commit: this process's writes too (in memory: the content store counts those).
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
 * LISTEN on this schema's change channel through a connection of its own, reconnecting
 * (every second) when it is lost. Notifications sent while it was down are lost, which is
 * why `onState` reports each (re)connection.
 */
async function listenForChanges(config: pg.ClientConfig, onChange: (payload: string) => void, onState: (listening: boolean) => void): Promise<() => Promise<void>> {
  let stopped = false
  let client: pg.Client | undefined
  let retry: NodeJS.Timeout | undefined
  const schedule = () => {
    if (stopped) return
    retry = setTimeout(() => void connect(), 1000)
    retry.unref()
  }
  const connect = async (): Promise<void> => {
    const c = new (loadPg().Client)(config)
    c.on('error', () => {}) // 'end' follows
    c.on('end', () => {
      if (client !== c) return
      client = undefined
      onState(false)
      schedule()
    })
    c.on('notification', (m) => { if (m.payload !== undefined) onChange(m.payload) })
    try {
      await c.connect()
      const { rows } = await c.query<{ schema: string }>('SELECT current_schema() AS schema')
      await c.query(`LISTEN "${(CHANNEL_PREFIX + rows[0].schema).replace(/"/g, '""')}"`)
      if (stopped) return void (await c.end())
      client = c
      onState(true)
    } catch {
      await c.end().catch(() => {})
      schedule()
    }
  }
  await connect()
  return async () => {
    stopped = true
    clearTimeout(retry)
    const c = client
    client = undefined
    await c?.end().catch(() => {})
  }
}

/**
 * Kysely releases a client back to the pool without saying whether it failed, so a client
 * whose query timed out on a silent server would be handed out again, still waiting for that
 * answer. This pool notes a client whose query failed for a reason other than the server's
 * own error reply (a timeout, a dropped connection) and destroys it on release.
 */
function discardingBrokenClients(pool: pg.Pool, watch: QueryWatch | undefined): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect()
      let broken = false
      const settled = () => watch?.ended(client)
      const note = (err: unknown) => {
        settled()
        if (!(err instanceof loadPg().DatabaseError)) broken = true
        throw err
      }
      return {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        query: ((...args: any[]) => {
          watch?.started(client)
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          const result = (client.query as (...a: any[]) => any)(...args)
          if (typeof result?.then !== 'function') {
            settled()
            return result
          }
          return result.then((value: unknown) => {
            settled()
            return value
          }, note)
        }) as PostgresPoolClient['query'],
        release: () => client.release(broken ? new Error('connection discarded after a failed query') : undefined),
      }
    },
    end: () => pool.end(),
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
