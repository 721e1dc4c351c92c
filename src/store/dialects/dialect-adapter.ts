// What the store asks of an engine, in the pieces Kysely splits a dialect into: capability
// flags and column types, SQL fragments, statements run inside a transaction (locks, ids,
// notifications), introspection and error classification. Each dialect implements every
// piece in its own folder (`sqlite/`, `postgres/`); nothing outside those folders asks
// which engine it is talking to, only what the engine can do.
import type { RawBuilder } from 'kysely'
import type { Db } from './db.js'
import type { Placeholders } from '../sql-fragment.js'
import type { TableInfo } from './table-info.js'
import type { DialectSql } from './dialect-sql.js'

export type DialectName = 'sqlite' | 'postgres'

/** Flags and column types: what the engine can do, never which engine it is. */
export interface DialectCapabilities {
  /** For display only (readiness, diagnostics); decisions read the flags below. */
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
   * Whether change-feed pages are best written by the database (`readRenderedChangePage`):
   * measured on the bench's walk of distinct `/changes?limit=200` pages.
   */
  readonly rendersChangePages: boolean
  /**
   * Whether reads in a write transaction can lock rows (`FOR UPDATE`). SQLite needs none:
   * its write transactions hold the database's write lock from BEGIN.
   */
  readonly rowLocks: boolean
  /**
   * Whether a connection bounds how long a statement runs (PostgreSQL's statement_timeout):
   * a serving process then migrates on a connection of its own, opened without the bound.
   */
  readonly statementTimeouts: boolean
}

/** Statements a write transaction runs that differ by engine. */
export interface DialectTransactions {
  /** `FOR UPDATE SKIP LOCKED` where rows can be claimed apart, else nothing. */
  readonly skipLocked: RawBuilder<unknown>
  /** Takes a transaction-scoped lock on `key` (serialises writers across processes); SQLite: nothing to do. */
  transactionLock(tx: Db, key: number): Promise<void>
  /** The next `n` ids of `table`, taken before insert so each document is written once. */
  allocateIds(tx: Db, table: string, n: number): Promise<number[]>
  /** Inside a write transaction: tells other processes, at commit, that content changed (PostgreSQL NOTIFY). */
  notifyChange(tx: Db, payload: string): Promise<void>
  /**
   * Inside a transaction: makes sure an extension is installed and returns its schema
   * (PostgreSQL; a new one goes in `public` when that exists, so no test schema drops it).
   */
  ensureExtension(tx: Db, name: string): Promise<string | undefined>
  /** Inside a transaction: creates (or updates) the function `searchDocument` calls. */
  ensureSearchDocument(tx: Db): Promise<void>
}

/** What the database says its tables are. */
export interface DialectIntrospection {
  /** Every table of the connected schema with its columns and indexes, sorted by name. */
  describeTables(db: Db, only?: readonly string[]): Promise<TableInfo[]>
}

/** Which driver errors mean what. */
export interface DialectErrors {
  /** Columns of the unique constraint `err` violated on `table`, or undefined for other errors. */
  uniqueViolation(err: unknown, table: string): string[] | undefined
  /**
   * The database cannot be reached, dropped the connection, or did not answer within the
   * connect, query or busy timeout: the request is answered 503 SERVICE_UNAVAILABLE.
   */
  isUnavailable(err: unknown): boolean
  /**
   * The database could not write because its disk (or, for SQLite, the file's page limit) is
   * full: SQLITE_FULL, PostgreSQL's 53100 disk_full. Reads still work; writes answer 507
   * STORAGE_FULL until one succeeds again.
   */
  isStorageFull(err: unknown): boolean
  /** A deadlock or serialization failure (PostgreSQL), a stale snapshot (SQLite): safe to retry. */
  isWriteConflict(err: unknown): boolean
  /** A unique or primary-key constraint refused the row. */
  isUniqueViolation(err: unknown): boolean
  /** The table read does not exist (an older schema). */
  isMissingTable(err: unknown): boolean
}

/** One engine: every piece above. */
export interface DialectAdapter extends DialectCapabilities, Placeholders, DialectSql, DialectTransactions, DialectIntrospection, DialectErrors {}
