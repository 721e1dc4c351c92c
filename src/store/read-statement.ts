// A read statement of the hot path: SQL text and its parameters as one fragment
// (src/store/sql-fragment.ts), built without a query builder (building and compiling a
// Kysely query cost more than running a page query). The text depends only on the family and
// the query's shape, so `Database.read` prepares it once and reuses it.
import type { Database } from './database.js'
import type { DialectAdapter } from './dialects/dialect-adapter.js'
import { renderFragment, type Fragment } from './sql-fragment.js'

/** What building a statement learns besides its text: the engine, and whether to keep it prepared. */
export class ReadStatement {
  /**
   * False once the text holds a user-chosen part (a document path) or a parameter whose
   * best plan depends on its value (a LIKE pattern, a containment document): PostgreSQL
   * then plans it for each call instead of keeping a generic plan.
   */
  prepare = true

  constructor(readonly adapter: DialectAdapter) {}
}

/** Runs `sql` on the hot read path; rows come back as arrays. */
export function readRows(database: Database, sql: Fragment, opts: { readonly prepare?: boolean; readonly generic?: boolean } = {}): Promise<unknown[][]> {
  const { text, params } = renderFragment(sql, database.adapter)
  return database.read(text, params, opts)
}
