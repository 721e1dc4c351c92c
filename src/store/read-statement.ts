// A read statement of the hot path as SQL text and its parameters, built by string
// concatenation (no query builder on the way: building and compiling a Kysely query cost
// more than running a page query). The text depends only on the family and the query's
// shape, so `Database.read` prepares it once and reuses it.
import type { DialectAdapter } from './database.js'

export class ReadStatement {
  text = ''
  readonly params: unknown[] = []
  /**
   * False once the text holds a user-chosen part (a document path) or a parameter whose
   * best plan depends on its value (a LIKE pattern, a containment document): PostgreSQL
   * then plans it for each call instead of keeping a generic plan.
   */
  prepare = true

  constructor(readonly adapter: DialectAdapter) {}

  /** Adds a parameter and returns its placeholder. */
  param(value: unknown): string {
    this.params.push(typeof value === 'boolean' ? this.adapter.bool(value) : value)
    return this.adapter.param(this.params.length)
  }
}

/** A string as an SQL literal (both engines use standard quoting). */
export const sqlLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`

/** A quoted identifier. */
export const sqlName = (name: string) => `"${name.replace(/"/g, '""')}"`
