// The PostgreSQL dialect: flags and column types here, each other piece in its own file.
import type { DialectAdapter } from '../dialect-adapter.js'
import { postgresErrors } from './errors.js'
import { describePostgresTables } from './introspection.js'
import { postgresSql } from './sql.js'
import { postgresTransactions } from './transactions.js'

export const postgresAdapter: DialectAdapter = {
  name: 'postgres',
  // json (not jsonb) keeps the stored text as written: documents go out in declared key
  // order with no jsonb-to-text conversion on the hot read path.
  jsonType: 'json',
  idColumnType: 'bigserial primary key',
  booleanType: 'boolean',
  bigintType: 'bigint',
  doubleType: 'double precision',
  searchIndexes: true,
  // 1,600 values a page (8 columns, 200 rows) cost more to receive, keep and collect than the
  // database spends writing one text: 300 pages/s rendered here, 418 by PostgreSQL.
  rendersChangePages: true,
  rowLocks: true,
  statementTimeouts: true,
  // `$n`, a parameter used twice named once; real booleans.
  numbered: true,
  bool: (v) => v,
  ...postgresSql,
  ...postgresTransactions,
  describeTables: describePostgresTables,
  ...postgresErrors,
}
