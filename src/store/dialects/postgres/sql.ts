// PostgreSQL's SQL fragments: JSON read with `#>`/`#>>` through `pgReadableSql`, paths written
// as literals so expression indexes match them, containment through the search document.
import { sql } from 'kysely'
import type { DialectSql } from '../dialect-sql.js'
import { frag, join, raw, type Fragment } from '../../sql-fragment.js'
import { sqlLiteral } from '../../sql-quote.js'
import { pgReadable, pgReadableSql, SEARCH_DOCUMENT } from './readable-document.js'

// Paths as text-array literals (their parts are field names, checked where they are parsed;
// quotes and array punctuation are stripped all the same).
const pgPathText = (path: readonly string[]) => `{${path.map((p) => `"${p.replace(/["{},]/g, '')}"`).join(',')}}`
const pgPath = (path: readonly string[]) => sqlLiteral(pgPathText(path))

/**
 * How many positions of the change log (in pages) PostgreSQL reads in sequence order before it
 * reads each type's range instead: a page of types making up a quarter of the log or more
 * comes from that one range.
 */
const LOG_WINDOW = 4

/**
 * Two forms, chosen by PostgreSQL as it runs (one-time filters: the form not chosen is never
 * started). First the log's next positions (`LOG_WINDOW` pages' worth, one bounded range of
 * positions): when they hold a whole page of these types, as for a follower of most types,
 * that is the page (0.14 ms against 0.8 on the bench's log). Otherwise, for types rare in the
 * log, each type's page as a range of the (type, seq) index, merged. `after` and `more` are
 * the same fragments (the same parameters) in every place they appear.
 */
function changesOfTypesAfter(columns: string, types: readonly string[], after: Fragment, more: Fragment, limit: number): Fragment {
  const cols = raw(columns)
  const n = raw(String(limit))
  const head = frag`SELECT ${cols} FROM change_log c WHERE c.seq > ${after} AND c.seq <= ${after} + ${raw(String(LOG_WINDOW * limit))} AND c.resource_type IN (${raw(types.join(', '))})${more} ORDER BY c.seq LIMIT ${n}`
  const page = (type: string, i: number) =>
    frag`SELECT * FROM (SELECT ${cols} FROM change_log c WHERE (c.resource_type, c.seq) > (${raw(type)}, ${after}) AND c.resource_type <= ${raw(type)}${more} ORDER BY c.resource_type, c.seq LIMIT ${n}) p${raw(String(i))}`
  const merged = frag`SELECT * FROM (${join(types.map(page), ' UNION ALL ')}) c ORDER BY c.seq LIMIT ${n}`
  return frag`WITH head AS MATERIALIZED (${head}) SELECT * FROM head WHERE (SELECT count(*) FROM head) = ${n} UNION ALL SELECT * FROM (${merged}) m WHERE (SELECT count(*) FROM head) < ${n}`
}

export const postgresSql: DialectSql = {
  docText: (column) => sql<string>`${sql.ref(column)}::text`,
  docSql: (ref) => `${ref}::text`,
  jsonAt: (ref, path) => `((${pgReadableSql(ref)} #> ${pgPath(path)})::text)`,
  textAt: (ref, path) => `(${pgReadableSql(ref)} #>> ${pgPath(path)})`,
  ilike: (expr, pattern) => frag`(${raw(expr)} ILIKE ${pattern} ESCAPE '\\')`,
  textContainsSql: (ref, value) => frag`(strpos(${raw(ref)}::text, ${value}) > 0)`,
  // Interval arithmetic in whole microseconds: exact, unlike to_timestamp(seconds).
  isoOfMs: (expr) => `to_char(TIMESTAMP '1970-01-01' + ${expr} * INTERVAL '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  joinInOrder: (expr, orderBy) => `string_agg(${expr}, ',' ORDER BY ${orderBy})`,
  changesOfTypesAfter,
  anyElement: (ref, path, test) => {
    const array = `${pgReadableSql(ref)} #> ${pgPath(path)}`
    return frag`EXISTS (SELECT 1 FROM json_array_elements(CASE WHEN json_typeof(${raw(array)}) = 'array' THEN ${raw(array)} ELSE '[]'::json END) AS el(value) WHERE ${test('el.value')})`
  },
  elementJsonAt: (element, path) => `((${element} #> ${pgPath(path)})::text)`,
  elementTextAt: (element, path) => `(${element} #>> ${pgPath(path)})`,
  // The cast is what the GIN index is built on (declared in the family's table).
  jsonContains: (ref, doc) => frag`(${raw(`${SEARCH_DOCUMENT}(${ref})`)} @> ${doc}::jsonb)`,
  // COALESCE (the function is STRICT and documents are never null) keeps the planner from
  // estimating the test against the GIN index's statistics of whole documents: 2 ms of
  // planning for each containment document, against 0.2 ms for the whole statement.
  jsonContainsAny: (ref, docs) => frag`(COALESCE(${raw(`${SEARCH_DOCUMENT}(${ref})`)}, '{}') @> ANY (${docs}::jsonb[]))`,
  joinEach: (outer, table, alias, columns, where) =>
    frag`${raw(`${outer} CROSS JOIN LATERAL (SELECT ${columns} FROM ${table} ${alias} WHERE `)}${where}${raw(` OFFSET 0) ${alias}`)}`,
  contains: (column, text) => sql<boolean>`(strpos(${sql.ref(column)}, ${text}) > 0)`,
  // #>> yields text: compare with the value's text.
  textAtEquals: (column, path, value) => sql<boolean>`(${pgReadable(column)} #>> ${pgPathText(path)}) = ${String(value)}`,
  searchDocument: (ref) => `${SEARCH_DOCUMENT}(${ref})`,
}
