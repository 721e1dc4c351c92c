// A stored document as PostgreSQL's JSON operators can read it. `#>` and `#>>` parse the
// whole document and fail on the escape of a lone surrogate (`\ud800`) or of U+0000,
// which writes refuse but older rows may hold: one such row made every filtered list that
// scanned it fail. Those escapes are replaced by U+FFFD first, only in rows whose text has a
// `\u` escape at all (JSON.stringify writes one only for control characters and lone
// surrogates, never for a valid pair), so other rows cost one strpos.
import { sql } from 'kysely'
import type { Db } from '../db.js'
import { sqlLiteral } from '../../sql-quote.js'

const BAD_ESCAPE = '(?<!\\\\)((?:\\\\\\\\)*)\\\\u(?:[dD][89a-fA-F][0-9a-fA-F]{2}|0000)'

/** The function the search index is built on (src/store/declared-schema.ts), per schema. */
export const SEARCH_DOCUMENT = 'gatehouse_search_document'

/** For Kysely reads: `column` is a column name. */
export const pgReadable = (column: string) =>
  sql`(CASE WHEN strpos(${sql.ref(column)}::text, '\\u') = 0 THEN ${sql.ref(column)} ELSE regexp_replace(${sql.ref(column)}::text, ${BAD_ESCAPE}, ${'\\1\uFFFD'}, 'g')::json END)`

/** The same, as SQL text of the hot read path (`ref` is a column reference such as `t.doc`). */
export const pgReadableSql = (ref: string) =>
  `(CASE WHEN strpos(${ref}::text, '\\u') = 0 THEN ${ref} ELSE regexp_replace(${ref}::text, ${sqlLiteral(BAD_ESCAPE)}, ${sqlLiteral('\\1\uFFFD')}, 'g')::json END)`

/** Inside a transaction: creates (or updates) `SEARCH_DOCUMENT`, the document as jsonb. */
export async function ensureSearchDocument(tx: Db): Promise<void> {
  // IMMUTABLE (its result depends on its argument only), as an index expression must be.
  await sql.raw(`CREATE OR REPLACE FUNCTION ${SEARCH_DOCUMENT}(doc json) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
      SELECT (CASE WHEN strpos(doc::text, '\\u') = 0 THEN doc::text ELSE regexp_replace(doc::text, ${sqlLiteral(BAD_ESCAPE)}, ${sqlLiteral('\\1\uFFFD')}, 'g') END)::jsonb
    $fn$`).execute(tx)
}
