// A migrated database is made once and copied for every test that asks for one: migrating
// runs about sixty schema steps (about 1 s of this process's CPU and a hundred commits on
// PostgreSQL), and the suite makes a few hundred databases. A copy holds exactly what the
// migration left (tables, indexes, recorded migrations and steps), so the start-up's own
// reconciliation finds nothing to do, as on a migrated database.
//
// SQLite: the template is a closed database file, copied. PostgreSQL: the template schema is
// dumped once with pg_dump and dropped; each copy replays the dump into a new schema in one
// transaction. Without pg_dump, or when a copy fails, the database is migrated as before.
//
// Templates live for one `npm test` run (GATEHOUSE_TEST_RUN, set by scripts/run-tests.mjs,
// which removes them at the end), or for one process when a file runs on its own; the first
// process to need one makes it and the others reuse it.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { createSchema, dropSchema, rememberPristine, runInTransaction } from './postgres-schemas.js'
import { openDatabase, type Database } from '../../src/store/database.js'
import { migrateSchema } from '../../src/store/schema-reconcile.js'
import { defaultRegistry } from '../../src/resources/index.js'

const run = process.env.GATEHOUSE_TEST_RUN
/** Where this run's templates are kept (scripts/run-tests.mjs removes it; so must it name it). */
export const templateDir = join(tmpdir(), `gatehouse-test-templates-${run ?? `pid${process.pid}`}`)
if (run === undefined) process.on('exit', () => rmSync(templateDir, { recursive: true, force: true }))

const migrate = (database: Database) => migrateSchema(database, defaultRegistry.all)

/** Writes `file` through a temporary name, so a reader never sees half of it. */
function publish(file: string, write: (tmp: string) => void): void {
  mkdirSync(templateDir, { recursive: true })
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`
  write(tmp)
  renameSync(tmp, file)
}

/** Copies the migrated SQLite template to `file` (making the template first when needed). */
export async function copySqliteTemplate(file: string): Promise<void> {
  const template = join(templateDir, 'sqlite.db')
  if (!existsSync(template)) {
    mkdirSync(templateDir, { recursive: true })
    const scratch = join(templateDir, `scratch-${process.pid}-${randomBytes(4).toString('hex')}.db`)
    const database = openDatabase(`sqlite:${scratch}`)
    try { await migrate(database) } finally { await database.close() }
    // Closing checkpoints the write-ahead log into the file, so the file alone is the database.
    renameSync(scratch, template)
  }
  copyFileSync(template, file)
}

let dumpText: string | undefined | null
/** Where the dump's data statements (the template's rows, its sequences' positions) begin. */
const DATA_MARK = '-- gatehouse: template rows'

/**
 * The migrated schema as SQL, with the schema's name as a placeholder; undefined when
 * pg_dump is not there (then each database is migrated).
 */
async function postgresDump(url: string): Promise<string | undefined> {
  if (dumpText !== undefined) return dumpText ?? undefined
  const file = join(templateDir, 'postgres.sql')
  if (existsSync(file)) return (dumpText = readFileSync(file, 'utf8'))
  // A name no statement of the dump can contain by chance, replaced by each copy's.
  const schema = `gatehouse_template_${randomBytes(8).toString('hex')}`
  await createSchema(url, schema)
  try {
    const database = openDatabase(url, { schema })
    try { await migrate(database) } finally { await database.close() }
    const dump = spawnSync('pg_dump', ['--schema-only', '--no-owner', '--no-privileges', '--schema', schema, '--dbname', url], { encoding: 'utf8' })
    const data = spawnSync('pg_dump', ['--data-only', '--inserts', '--no-owner', '--no-privileges', '--schema', schema, '--dbname', url], { encoding: 'utf8' })
    if (dump.status !== 0 || data.status !== 0) {
      dumpText = null
      return undefined
    }
    // psql's meta-commands (\restrict …) and the schema's own creation are left out: each copy
    // creates its schema before replaying.
    const text = `${dump.stdout}\n${DATA_MARK}\n${data.stdout}`.split('\n')
      .filter((line) => !line.startsWith('\\') && !line.startsWith(`CREATE SCHEMA ${schema};`))
      .join('\n').replaceAll(schema, '__SCHEMA__')
    publish(file, (tmp) => writeFileSync(tmp, text))
    return (dumpText = text)
  } finally {
    await dropSchema(url, schema).catch(() => {})
  }
}

/**
 * Fills the new, empty `schema` with a copy of the migrated template. False when there is no
 * template to copy (the caller migrates instead).
 */
export async function copyPostgresTemplate(url: string, schema: string): Promise<boolean> {
  const dump = await postgresDump(url)
  if (dump === undefined) return false
  // One transaction: one commit instead of one per step. The dump sets search_path to ''
  // and names every object with its schema.
  await runInTransaction(url, dump.replaceAll('__SCHEMA__', schema))
  // The first copy of the process is the model a used schema must match to be reused.
  await rememberPristine(url, schema, dump.slice(dump.indexOf(DATA_MARK)))
  return true
}
