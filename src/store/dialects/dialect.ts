// The engine-neutral face of an open store: what every dialect's opening returns, and the
// options it takes. Types only, so the dialect folders and database.ts (which picks one)
// both depend on this file and not on each other.
import type { DialectAdapter } from './dialect-adapter.js'
import type { Db } from './db.js'


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
