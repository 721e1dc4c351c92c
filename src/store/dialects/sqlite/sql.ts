// SQLite's SQL fragments: JSON read with `->`/`->>` and json_each, paths written as literals
// so expression indexes match them.
import { sql } from 'kysely'
import type { DialectSql } from '../dialect-sql.js'
import { frag, raw } from '../../sql-fragment.js'
import { sqlLiteral } from '../../sql-quote.js'

// Paths as SQL string literals (their parts are field names, checked where they are parsed;
// quotes are stripped all the same), so the text names them and expression indexes match.
const jsonPathText = (path: readonly string[]) => '$' + path.map((p) => `."${p.replace(/"/g, '')}"`).join('')
const jsonPath = (path: readonly string[]) => sqlLiteral(jsonPathText(path))

export const sqliteSql: DialectSql = {
  docText: (column) => sql<string>`${sql.ref(column)}`,
  docSql: (ref) => ref,
  jsonAt: (ref, path) => `(${ref} -> ${jsonPath(path)})`,
  textAt: (ref, path) => `(${ref} ->> ${jsonPath(path)})`,
  ilike: (expr, pattern) => frag`(${raw(expr)} LIKE ${pattern} ESCAPE '\\')`,
  textContainsSql: (ref, value) => frag`(instr(${raw(ref)}, ${value}) > 0)`,
  joinEach: (outer, table, alias, _columns, where) => frag`${raw(`${outer} CROSS JOIN ${table} ${alias} ON `)}${where}`,
  // Whole seconds by strftime, milliseconds padded by hand (integer arithmetic, no rounding).
  isoOfMs: (expr) => `(strftime('%Y-%m-%dT%H:%M:%S', ${expr} / 1000, 'unixepoch') || '.' || substr('00' || (${expr} % 1000), -3) || 'Z')`,
  joinInOrder: (expr, orderBy) => `group_concat(${expr}, ',' ORDER BY ${orderBy})`,
  // INDEXED BY: with statistics (after an ANALYZE) SQLite may walk the primary key instead,
  // which reads every later change of the other types when the page's types are rare.
  changesOfTypesAfter: (columns, types, after, more, limit) =>
    frag`${raw(`SELECT ${columns} FROM change_log c INDEXED BY change_log_type_seq WHERE c.resource_type IN (${types.join(', ')}) AND c.seq > `)}${after}${more}${raw(` ORDER BY c.seq LIMIT ${limit}`)}`,
  anyElement: (ref, path, test) => frag`${raw(`EXISTS (SELECT 1 FROM json_each(${ref}, ${jsonPath(path)}) AS el WHERE `)}${test('el.value')})`,
  contains: (column, text) => sql<boolean>`(instr(${sql.ref(column)}, ${text}) > 0)`,
  // json_each's value is the SQL value for scalars (a number compares unequal to its text,
  // so it is quoted too) and JSON text for objects and arrays.
  elementJsonAt: (element, path) => path.length === 0
    ? `(CASE WHEN el.type = 'true' THEN 'true' WHEN el.type = 'false' THEN 'false' WHEN el.type IN ('object', 'array') THEN ${element} ELSE json_quote(${element}) END)`
    : `(${element} -> ${jsonPath(path)})`,
  elementTextAt: (element, path) => path.length === 0 ? element : `(${element} ->> ${jsonPath(path)})`,
  // ->> yields the SQL value (an integer stays an integer).
  textAtEquals: (column, path, value) => sql<boolean>`(${sql.ref(column)} ->> ${jsonPathText(path)}) = ${value}`,
  searchDocument: (ref) => ref,
}
