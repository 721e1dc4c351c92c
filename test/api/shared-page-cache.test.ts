// The page cache on PostgreSQL, with several app instances on one database: each keeps its
// own cache, and a write in any of them reaches the others through NOTIFY at commit; while an
// instance cannot listen, its cache is off.
// npm test: timing (another process notified within a second of a write)
// npm test: waits (mostly waiting, little CPU: runs in the waiting lane beside the other groups)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { sql } from 'kysely'
import { PG_URL, buildTestApp, testDatabase, testDialects, type TestApp, type TestDatabase } from '../helpers/test-app.js'
import { openDatabase } from '../../src/store/database.js'
import { until } from '../helpers/until.js'

/** A second connection pool on the same schema: what another process would open. */
function sameDatabase(db: TestDatabase): TestDatabase {
  const other = openDatabase(db.url, { schema: db.schema })
  return { ...other, url: db.url, schema: db.schema, destroy: () => other.close() }
}

/** Resolves at the next change notification `app` receives; rejects after 5 s without one. */
const nextNotification = (app: TestApp) => new Promise<void>((resolve, reject) => {
  const timer = setTimeout(() => { off(); reject(new Error('no change notification within 5 s')) }, 5000)
  const off = app.services.changes.subscribe(() => { off(); clearTimeout(timer); resolve() })
})

if ((await testDialects()).includes('postgres')) {
  test('postgres: a write in one instance drops the cached pages of another at once', async (t) => {
    const database = await testDatabase('postgres')
    const a = await buildTestApp({ dialect: 'postgres', database })
    const b = await buildTestApp({ dialect: 'postgres', database: sameDatabase(database) })
    t.after(async () => {
      await b.close()
      await b.database.destroy()
      await a.close()
      await database.destroy()
    })
    const product = await a.services.store.create('products', { type: 'shirt', title: 'Blue shirt', slug: 'blue-shirt' })
    const token = await a.issueToken(['products:read', 'changes:read'])
    const title = async () => (await b.get(`/gatehouse/v1/products/show?id=${product.id}&fields=title`, token)).json().data.title
    const feedTitle = async () => (await b.get('/gatehouse/v1/changes?types=products', token)).json().data.at(-1).snapshot.title

    await until(async () => b.services.changes.crossProcess, 'B to listen')
    // Twice: a page is kept from its second request on.
    for (let i = 0; i < 2; i++) {
      assert.equal(await title(), 'Blue shirt')
      assert.equal(await feedTitle(), 'Blue shirt')
    }
    // B serves these pages from its cache now: a change that bypasses the write service (and
    // so sends no notification) does not show.
    await sql`UPDATE products SET doc = ${JSON.stringify({ ...product, title: 'Changed behind its back' })} WHERE id = ${product.id}`.execute(database.db)
    assert.equal(await title(), 'Blue shirt', 'B answers from its page cache')
    assert.equal(await feedTitle(), 'Blue shirt')

    // A write through A: B is notified at A's commit and its next answer is fresh.
    const notified = nextNotification(b)
    const started = Date.now()
    await a.services.store.update('products', product.id as number, { title: 'Red shirt' })
    await notified
    const latency = Date.now() - started
    assert.equal(await title(), 'Red shirt')
    assert.equal(await feedTitle(), 'Red shirt')
    assert.ok(latency < 1000, `notified ${latency} ms after the write`)
  })

  test('postgres: while an instance cannot listen its cache is off, until the listener\'s connection is back', async (t) => {
    const database = await testDatabase('postgres')
    const app = await buildTestApp({ dialect: 'postgres', database })
    t.after(async () => {
      await app.close()
      await database.destroy()
    })
    const product = await app.services.store.create('products', { type: 'shirt', title: 'Blue shirt', slug: 'blue-shirt' })
    const token = await app.issueToken(['products:read'])
    const title = async () => (await app.get(`/gatehouse/v1/products/show?id=${product.id}`, token)).json().data.title
    await until(async () => app.services.changes.crossProcess, 'listening')
    // Twice, so that the page is in the cache (kept from its second request on).
    assert.equal(await title(), 'Blue shirt')
    assert.equal(await title(), 'Blue shirt')

    // The listening connection is lost (a database restart, a network cut).
    const admin = new pg.Client({ connectionString: PG_URL })
    await admin.connect()
    try {
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'gatehouse change listener' AND query LIKE $1`, [`LISTEN "gatehouse_changes_${database.schema}"`])
      await until(async () => !app.services.changes.crossProcess, 'the loss to be noticed')
      assert.equal(app.services.changes.version(), undefined)
      // Changes made now would not be announced to this instance: it must not answer from cache.
      await sql`UPDATE products SET doc = ${JSON.stringify({ ...product, title: 'Changed while deaf' })} WHERE id = ${product.id}`.execute(database.db)
      assert.equal(await title(), 'Changed while deaf')
      await until(async () => app.services.changes.crossProcess, 'listening again', 10_000)
      assert.equal(await title(), 'Changed while deaf')
    } finally {
      await admin.end()
    }
  })
}
