// The SQL fragments that differ by engine. The hot read path (src/store/record-query.ts,
// change-page.ts) builds its statements as text, prepared once per shape: `ref` is a column
// reference (`t.doc`); paths are written into the text as literals, so expression indexes can
// match them. A fragment that binds a value takes it as a `Fragment`, which carries its own
// parameters (src/store/sql-fragment.ts). Kysely reads get `RawBuilder`s.
import type { RawBuilder } from 'kysely'
import type { Fragment } from '../sql-fragment.js'

export interface DialectSql {
  /** The document as JSON text, ready to splice into a response without parsing. */
  docText(column: string): RawBuilder<string>
  /** The document column as JSON text. */
  docSql(ref: string): string
  /** JSON text of the value at a path (`"abc"`, `12`, `true`), or NULL. */
  jsonAt(ref: string, path: readonly string[]): string
  /** The scalar at a path as plain text (strings unquoted), or NULL. */
  textAt(ref: string, path: readonly string[]): string
  /** Case-insensitive LIKE of `expr` against `pattern`. */
  ilike(expr: string, pattern: Fragment): Fragment
  /**
   * A SELECT of `columns` from `change_log c`: the rows of these types after the position
   * `after` (and meeting the conditions `more`, `' AND …'`), the first `limit` in sequence
   * order, written so that it reads about `limit` rows of the (resource_type, seq) index
   * whatever the types. SQLite gets an IN list: it walks each type's index range in order and
   * leaves it once the page is full. PostgreSQL reads a bounded range of the log's next
   * positions when that holds a whole page, and otherwise each type's page as a range, merged:
   * left to choose, with an equality or an IN list it walks the primary key unbounded when it
   * thinks a type is spread evenly through the log, reading every later change of the other
   * types (14 ms a page mid-log on the bench data). PostgreSQL's text uses `after` and `more`
   * more than once (the same parameters each time), and its two forms are joined by UNION ALL
   * without an outer ORDER BY: callers order the rows.
   */
  changesOfTypesAfter(columns: string, typeLiterals: readonly string[], after: Fragment, more: Fragment, limit: number): Fragment
  /**
   * ISO 8601 text of a millisecond timestamp as `Date#toISOString` writes it
   * (`2024-05-01T12:00:00.000Z`), for timestamps from 1970 to 9999.
   */
  isoOfMs(expr: string): string
  /** The non-null values of `expr` joined by commas in the order of `orderBy` (an aggregate). */
  joinInOrder(expr: string, orderBy: string): string
  /** Whether the text of `ref` (a document column) holds the text `value` (case-sensitive). */
  textContainsSql(ref: string, value: Fragment): Fragment
  /** Whether a text column contains `text` exactly (case-sensitive, no wildcards; Kysely reads). */
  contains(column: string, text: string): RawBuilder<boolean>
  /** EXISTS over the elements of an array at `path`, testing `test(elementRef)`. */
  anyElement(ref: string, path: readonly string[], test: (element: string) => Fragment): Fragment
  /** JSON text of the value at `path` inside an `anyElement` element (`[]`: the element itself). */
  elementJsonAt(element: string, path: readonly string[]): string
  /** Plain text of the scalar at `path` inside an `anyElement` element. */
  elementTextAt(element: string, path: readonly string[]): string
  /**
   * `ref` (a JSON document column) contains the JSON document `doc` (PostgreSQL `jsonb @>`,
   * which the GIN index on the document answers); undefined where the engine has no such
   * operator and path tests are used instead.
   */
  readonly jsonContains?: (ref: string, doc: Fragment) => Fragment
  /**
   * `ref` contains any of the JSON documents of the array `docs`, the document converted once
   * (`jsonContains` of each converts it each time). No index answers it: it tests rows
   * another index found (a list driven by a term).
   */
  readonly jsonContainsAny?: (ref: string, docs: Fragment) => Fragment
  /**
   * FROM-clause text: for each row of `outer`, in its order, the rows of `table` aliased
   * `alias` meeting `where` (which refers to the outer row), as an inner join the planner may
   * not turn around: PostgreSQL, a LATERAL subquery of `columns` kept apart by OFFSET 0 (it
   * would otherwise drive from the document's GIN index and sort every match); SQLite, a
   * CROSS JOIN (which keeps the written order).
   */
  joinEach(outer: string, table: string, alias: string, columns: string, where: Fragment): Fragment
  /** `textAt(column, path) = value`, with the value typed as the engine compares it. */
  textAtEquals(column: string, path: readonly string[], value: unknown): RawBuilder<boolean>
  /**
   * The document column `ref` as the search index and `jsonContains` read it: jsonb, through
   * a function that replaces what jsonb cannot hold (the escape of a lone surrogate or of
   * U+0000, which older rows may have) so that neither the index nor a query fails on a row.
   */
  searchDocument(ref: string): string
}
