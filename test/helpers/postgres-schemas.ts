// PostgreSQL test schemas: created, kept for reuse and dropped through one admin pool per
// process.
//
// Why keep them: filling a schema with the migrated template costs PostgreSQL about 0.3 s of
// CPU (some 460 DDL statements), dropping it 0.07 s, and each new connection about 30 ms more
// (a forked backend and a SCRAM exchange). The suite made about 190 such schemas, and
// PostgreSQL's CPU was a third of the run's. Emptying a used schema costs it about 0.03 s.
//
// A schema a test is done with is kept for the process's next test only when nothing could
// tell it from a fresh copy (see keepOrDrop):
// - its catalog (tables, columns with types and defaults, indexes, constraints, functions,
//   triggers) reads the same as the fresh copy's did;
// - its name never left the helper: a test that read `schema` may have handed it to another
//   process or pool, which could still write into it after the test ends.
// Emptying deletes the rows of the tables that hold some (truncates the large ones), puts back the template's own rows and sequence
// positions, and forgets planner statistics (an earlier test's ANALYZE must not steer a later
// test's plans). Schemas still kept when the process ends are dropped then.
import pg from 'pg'

const pools = new Map<string, pg.Pool>()

/**
 * One small pool per URL for the helpers' own statements. Idle, it does not keep the process
 * alive (allowExitOnIdle); the kept schemas are dropped before the process exits.
 */
export function adminPool(url: string): pg.Pool {
  let pool = pools.get(url)
  if (!pool) {
    pool = new pg.Pool({ connectionString: url, max: 2, allowExitOnIdle: true })
    // An idle connection PostgreSQL ended (a test of an outage) is replaced on the next query.
    pool.on('error', () => {})
    pools.set(url, pool)
  }
  return pool
}

export async function createSchema(url: string, schema: string): Promise<void> {
  await adminPool(url).query(`CREATE SCHEMA ${schema}`)
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  await adminPool(url).query(`DROP SCHEMA ${schema} CASCADE`)
}

/** What a fresh copy of the template looks like, learnt from this process's first copy. */
interface Pristine {
  readonly catalog: string
  readonly tables: readonly string[]
  /** The template's rows and sequence positions, as statements naming `__SCHEMA__`. */
  readonly rows: string
}

const pristine = new Map<string, Pristine>()
const kept = new Map<string, string[]>()

/**
 * The catalog of `schema` as text, its own name replaced, so two schemas built the same way
 * read the same. Sequences' positions are data, not catalog: they are put back on reuse.
 */
async function catalogOf(url: string, schema: string): Promise<string> {
  const { rows } = await adminPool(url).query<{ catalog: string }>(`
    SELECT coalesce(string_agg(x, '|' ORDER BY x), '') AS catalog FROM (
      SELECT c.relname || ':' || c.relkind::text || ':' || coalesce((
        SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ',' ORDER BY a.attnum)
        FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '') AS x
      FROM pg_class c WHERE c.relnamespace = $1::regnamespace
      UNION ALL SELECT 'index:' || pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = $1::regnamespace
      UNION ALL SELECT 'constraint:' || conname || ':' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = $1::regnamespace
      UNION ALL SELECT 'function:' || proname || ':' || md5(prosrc) FROM pg_proc WHERE pronamespace = $1::regnamespace
      UNION ALL SELECT 'trigger:' || pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = $1::regnamespace AND NOT t.tgisinternal
    ) s`, [schema])
  return rows[0].catalog.replaceAll(schema, '__SCHEMA__')
}

/**
 * Records `schema`, just filled from the template, as what a reusable schema must look like
 * (once per process and URL). `rows`: the template's data statements.
 */
export async function rememberPristine(url: string, schema: string, rows: string): Promise<void> {
  if (pristine.has(url)) return
  const catalog = await catalogOf(url, schema)
  const { rows: tables } = await adminPool(url).query<{ relname: string }>(
    `SELECT relname FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind IN ('r', 'p') ORDER BY relname`, [schema])
  pristine.set(url, { catalog, tables: tables.map((t) => t.relname), rows })
}

/** How many emptied schemas this process keeps for `url` (test/tooling/migrated-template.test.ts). */
export const keptCount = (url: string): number => kept.get(url)?.length ?? 0

/** A schema kept by an earlier test of this process, emptied, or undefined. */
export function takeKeptSchema(url: string): string | undefined {
  return kept.get(url)?.pop()
}

/**
 * Empties `schema` and keeps it for the process's next test when its catalog still reads as
 * the template's; drops it otherwise (or when emptying fails).
 */
export async function keepOrDrop(url: string, schema: string): Promise<void> {
  const model = pristine.get(url)
  try {
    if (model && (await catalogOf(url, schema)) === model.catalog) {
      await empty(url, schema, model)
      const list = kept.get(url) ?? []
      kept.set(url, list)
      list.push(schema)
      dropKeptOnExit()
      return
    }
  } catch {
    // Not emptied (a lock held past the timeout, a lost connection): dropped below instead.
  }
  await dropSchema(url, schema)
}

/** Tables with at most this many rows are emptied by DELETE, larger ones by TRUNCATE. */
const DELETE_UP_TO = 2000

async function empty(url: string, schema: string, model: Pristine): Promise<void> {
  const q = (t: string) => `${schema}."${t}"`
  // Each table's rows, counted no further than the DELETE limit; empty tables are left alone.
  const { rows: counted } = await adminPool(url).query<{ t: string; n: string }>(model.tables.map((t) =>
    `SELECT '${t}' AS t, (SELECT count(*) FROM (SELECT 1 FROM ${q(t)} LIMIT ${DELETE_UP_TO + 1}) x) AS n`).join(' UNION ALL '))
  const rows = counted.filter((r) => Number(r.n) > 0)
  // A few rows are deleted; TRUNCATE gives every table and index a new file and the commit
  // syncs them all (about 0.16 s of PostgreSQL's wall time a test, against a few ms). Deleting
  // runs as a replica would apply it, so no trigger fires and no foreign key orders the tables.
  const few = rows.filter((r) => Number(r.n) <= DELETE_UP_TO)
  const many = rows.filter((r) => Number(r.n) > DELETE_UP_TO)
  const clear = [
    ...(few.length > 0 ? ["SET LOCAL session_replication_role = 'replica';", ...few.map((r) => `DELETE FROM ${q(r.t)};`), 'SET LOCAL session_replication_role = DEFAULT;'] : []),
    ...(many.length > 0 ? [`TRUNCATE ${many.map((r) => q(r.t)).join(', ')};`] : []),
  ].join(' ')
  // One transaction: a schema is either emptied whole or left as it was (and then dropped).
  await runInTransaction(url, `SET LOCAL lock_timeout = '2s'; ${clear}
    DELETE FROM pg_catalog.pg_statistic WHERE starelid IN (SELECT oid FROM pg_catalog.pg_class WHERE relnamespace = '${schema}'::regnamespace);
    ${model.rows.replaceAll('__SCHEMA__', schema)}`)
}

/**
 * Runs `statements` (one text, several statements) in one transaction on one of the admin
 * pool's connections, rolled back there when one fails.
 */
export async function runInTransaction(url: string, statements: string): Promise<void> {
  const client = await adminPool(url).connect()
  try {
    await client.query(`BEGIN; ${statements}; COMMIT`)
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {})
    throw err
  } finally {
    client.release()
  }
}

let exitHookSet = false

/** Drops the kept schemas when the process has nothing else to do, then ends the pools. */
function dropKeptOnExit(): void {
  if (exitHookSet) return
  exitHookSet = true
  process.once('beforeExit', () => {
    void Promise.all([...pools].map(async ([url, pool]) => {
      const schemas = kept.get(url) ?? []
      kept.delete(url)
      if (schemas.length > 0) await pool.query(`DROP SCHEMA ${schemas.join(', ')} CASCADE`).catch(() => {})
      await pool.end().catch(() => {})
    }))
  })
}
