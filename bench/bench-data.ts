// Databases the benchmark reads, made once and kept (bench/.data for SQLite; databases named
// after BENCH_DATABASE_URL's on PostgreSQL): the demo data at a scale (every family, linked,
// with a change log), and plain entries at 10k, 100k and 1M rows for the walk that shows how
// page cost grows with the table.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { sql } from 'kysely'
import { openDatabase, type Database } from '../src/store/database.js'
import { migrateSchema } from '../src/store/schema-reconcile.js'
import { ContentStore } from '../src/store/content-store.js'
import { seedDemo } from '../src/loaders/demo/demo-data.js'
import { allResources, defaultRegistry } from '../src/resources/index.js'

const DATA_DIR = 'bench/.data'

/**
 * A file of the benchmark's own under bench/.data, made on first use on either engine (a
 * PostgreSQL run on a fresh checkout keeps no database there, so nothing else made it).
 */
export function benchDataPath(name: string): string {
  mkdirSync(DATA_DIR, { recursive: true })
  return join(DATA_DIR, name)
}

/** The URL of a bench database called `name`, created on first use. */
async function databaseUrl(postgresUrl: string | undefined, name: string): Promise<string> {
  if (!postgresUrl) {
    mkdirSync(DATA_DIR, { recursive: true })
    return `sqlite:${DATA_DIR}/${name}.db`
  }
  const url = new URL(postgresUrl)
  const database = `${url.pathname.slice(1) || 'postgres'}_bench_${name}`.replace(/[^a-z0-9_]/gi, '_').toLowerCase()
  const admin = new pg.Client({ connectionString: postgresUrl })
  await admin.connect()
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${database}"`)
  } finally {
    await admin.end()
  }
  url.pathname = `/${database}`
  return url.toString()
}

async function withDatabase<T>(url: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const database = openDatabase(url)
  try {
    await migrateSchema(database, allResources)
    return await fn(database)
  } finally {
    await database.close()
  }
}

const count = async (db: Database, table: string) =>
  Number((await db.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)

/** The demo data at `scale` (scale 100: 100,000 entries, 20,000 products, their variants, orders…). */
export async function demoDatabase(postgresUrl: string | undefined, scale: number, log: (line: string) => void): Promise<string> {
  const url = await databaseUrl(postgresUrl, `demo_s${scale}`)
  await withDatabase(url, async (db) => {
    if (await count(db, 'entries') > 0) return
    const started = Date.now()
    let last = 0
    const result = await seedDemo(new ContentStore(db, defaultRegistry), {
      scale,
      onProgress: (done, total) => { if (Date.now() - last > 5000) { last = Date.now(); log(`seeding demo data: ${done.toLocaleString('en')} of ~${total.toLocaleString('en')}`) } },
    })
    log(`seeded ${result.total.toLocaleString('en')} records in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    if (db.adapter.name === 'postgres') await sql`VACUUM ANALYZE`.execute(db.db)
  })
  return url
}

async function analyze(db: Database): Promise<void> {
  if (db.adapter.name === 'postgres') await sql`VACUUM ANALYZE`.execute(db.db)
  else await sql`ANALYZE`.execute(db.db)
}

const WORDS = ['alpha', 'bravo', 'delta', 'eagle', 'fable', 'grape', 'hotel', 'ivory', 'joker', 'karma', 'lemon', 'mango', 'noble', 'ocean', 'piano', 'quilt', 'raven', 'sugar', 'tiger', 'umbra']
/** Tag ids per entry are drawn from this many, so an exact tag filter matches ~2/TAGS of the rows. */
export const TAGS = 700

/** `rows` live entries with words in their titles and tag ids in their fields (the walk's tables). */
export async function entriesDatabase(postgresUrl: string | undefined, rows: number, log: (line: string) => void): Promise<string> {
  const url = await databaseUrl(postgresUrl, `entries_${rows}`)
  await withDatabase(url, async (db) => {
    const have = await count(db, 'entries')
    if (have >= rows) {
      // A table loaded by an older version: the schema steps it lacks (its terms) run here,
      // before the server starts, as `gatehouse migrate` would on an upgrade.
      if ((await migrateSchema(db, allResources)).schemaSteps.length > 0) await analyze(db)
      return
    }
    const started = Date.now()
    // Bulk loads build their search indexes and exact-filter terms once at the end: the
    // schema steps that make them run again below (as they would on a real upgrade).
    const search = (await db.adapter.describeTables(db.db)).find((t) => t.name === 'entries')?.indexes.filter((i) => i.method === 'gin') ?? []
    for (const index of search) await sql.raw(`DROP INDEX "${index.name}"`).execute(db.db)
    await sql.raw('DROP TABLE IF EXISTS entries_terms').execute(db.db)
    const batch = 1000
    const t0 = 1_700_000_000_000
    for (let start = have + 1; start <= rows; start += batch) {
      const values = []
      for (let i = start; i < Math.min(start + batch, rows + 1); i++) {
        const section = ['news', 'blog', 'docs', 'pages'][i % 4]
        const title = `${WORDS[(i * 13) % 20]} ${WORDS[(i * 17) % 20]} ${i}`
        const slug = `entry-${i}`
        const at = t0 + i * 1000
        const doc = {
          id: i, section, type: 'post', title, slug, status: 'live', authorId: 1 + (i % 50), postDate: new Date(at).toISOString(),
          fields: { tagIds: [i % TAGS, (i * 7) % TAGS], featured: i % 10 === 0, body: 'lorem ipsum dolor sit amet '.repeat(6) },
          createdAt: new Date(at).toISOString(), updatedAt: new Date(at).toISOString(),
        }
        values.push({ id: i, uid: `bench-${i}`, created_at: at, updated_at: at, doc: JSON.stringify(doc), section, type: 'post', title, slug, status: 'live', author_id: doc.authorId })
      }
      await db.db.insertInto('entries').values(values).execute()
      if ((start - 1) % 100_000 === 0) log(`entries_${rows}: ${(start - 1).toLocaleString('en')} of ${rows.toLocaleString('en')}`)
    }
    await migrateSchema(db, allResources)
    await analyze(db)
    log(`entries_${rows}: ${rows.toLocaleString('en')} entries in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  })
  return url
}

export { WORDS }
