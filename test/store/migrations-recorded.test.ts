// Every start runs the migrations. On a database that has them all recorded (every start after
// the first) that is one read: no transaction per migration under the schema lock, so a start
// does not queue behind another process's schema change it has nothing to do with, and it costs
// a few milliseconds instead of some eighty round trips. A migration not yet recorded still
// runs, under the lock, as before.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import Sqlite from 'better-sqlite3'
import { migrations, runMigrations, SCHEMA_LOCK, type MigrationResult } from '../../src/store/migrations/index.js'
import { PG_URL, testDatabase, testDialects, type TestDatabase } from '../helpers/test-app.js'

/** Holds what a schema change holds on `db` (PostgreSQL: the schema lock; SQLite: the write lock) until released. */
async function holdSchemaLock(db: TestDatabase): Promise<() => Promise<void>> {
  if (db.adapter.name === 'sqlite') {
    const other = new Sqlite(db.url.slice('sqlite:'.length))
    other.exec('BEGIN IMMEDIATE')
    return async () => {
      other.exec('ROLLBACK')
      other.close()
    }
  }
  const other = new pg.Client({ connectionString: PG_URL })
  await other.connect()
  await other.query('BEGIN')
  await other.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK])
  return async () => {
    await other.query('ROLLBACK')
    await other.end()
  }
}

/** `work`, or a rejection after `ms`: a migration run that waits for the lock never ends on its own here. */
const within = <T>(ms: number, work: Promise<T>) => Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms).unref())])

for (const dialect of await testDialects()) {
  test(`${dialect}: migrations all recorded are read, not run again, while another process holds the schema lock`, async (t) => {
    // A short busy wait: on SQLite a run that wanted the write lock would fail instead of waiting.
    const db = await testDatabase(dialect, { busyTimeoutMs: 300 })
    t.after(() => db.destroy())
    const release = await holdSchemaLock(db)
    let results: MigrationResult[]
    try {
      results = await within(3000, runMigrations(db, migrations))
    } finally {
      await release()
    }
    assert.deepEqual(results, migrations.map((m) => ({ name: m.name, status: 'already-applied' })))
  })

  test(`${dialect}: a migration not yet recorded runs, and is recorded`, async (t) => {
    const db = await testDatabase(dialect)
    t.after(() => db.destroy())
    let ran = 0
    const added = { name: '999-test-only', up: async () => { ran++ } }
    const first = await runMigrations(db, [...migrations, added])
    assert.deepEqual(first.at(-1), { name: added.name, status: 'applied' })
    assert.ok(first.slice(0, -1).every((r) => r.status === 'already-applied'))
    const again = await runMigrations(db, [...migrations, added])
    assert.deepEqual(again.at(-1), { name: added.name, status: 'already-applied' })
    assert.equal(ran, 1)
  })
}
