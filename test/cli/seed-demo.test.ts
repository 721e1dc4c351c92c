// `gatehouse seed --demo --scale 1` fills every family with linked records, through the
// write service (derived values and the change log are real), the same for the same seed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDatabase, testDialects, type TestDatabase } from '../helpers/test-app.js'
import { ContentStore } from '../../src/store/content-store.js'
import { seedDemo } from '../../src/loaders/demo/demo-data.js'
import { allResources } from '../../src/resources/index.js'
import { importableTypes } from '../../src/loaders/ndjson-import.js'
import type { Db } from '../../src/store/database.js'
import { assertNoInternals, cliDatabase, runCli } from './helpers/cli.js'
import { defaultRegistry } from '../../src/resources/index.js'

const docs = async (db: Db, table: string): Promise<Record<string, unknown>[]> =>
  (await db.selectFrom(table).select('doc').orderBy('id').execute())
    .map((r) => (typeof r.doc === 'string' ? JSON.parse(r.doc) : r.doc) as Record<string, unknown>)

for (const dialect of await testDialects()) {
  test(`${dialect}: seed --demo --scale 1 creates linked data in every family`, async (t) => {
    const target = await cliDatabase(dialect)
    t.after(() => target.destroy())
    const env = { PLUGIN_GATEHOUSE_DATABASE_URL: target.url }

    const res = await runCli(['seed', '--demo', '--scale', '1', '--json'], { env })
    assert.equal(res.code, 0, res.stderr)
    const summary = JSON.parse(res.stdout)
    assert.equal(summary.scale, 1)
    // Progress goes to stderr as plain lines when stderr is not a terminal.
    // Its total is an estimate until the end, and says so.
    assert.match(res.stderr, /^Seeding demo data: ~\d+% \([\d,]+\/~[\d,]+ records, /m)
    assert.match(res.stderr, /^Seeding demo data: [\d,]+ records in \d+\.\ds$/m)

    const database = target.open()
    t.after(() => database.close())
    const { db } = database
    // Every family the store keeps (drafts come only from governed actions) has records,
    // and the command's counts are what the tables hold.
    for (const type of importableTypes(defaultRegistry)) {
      const r = allResources.find((x) => x.type === type)
      assert.ok(r)
      const row = await db.selectFrom(r.table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()
      assert.ok(Number(row.n) > 0, `${type} is empty`)
      assert.equal(summary.counts[type], Number(row.n), `${type} count`)
    }
    assert.equal(summary.counts.entries, 1000)
    assert.equal(summary.counts.products, 200)
    const changes = await db.selectFrom('change_log').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()
    // One created change per record, plus one update per product when its variants land.
    assert.equal(Number(changes.n), summary.total + summary.counts.products)

    const [products, variants, entries, users, addresses, blocks, categories, sections, orders, transfers] = await Promise.all(
      ['products', 'variants', 'entries', 'users', 'addresses', 'content_blocks', 'categories', 'sections', 'orders', 'transfers'].map((tb) => docs(db, tb)))
    const ids = (rows: Record<string, unknown>[]) => new Set(rows.map((x) => x.id))

    // Products carry 1–5 variants and the totals derived from them.
    for (const p of products) {
      const own = variants.filter((v) => v.productId === p.id)
      assert.ok(own.length >= 1 && own.length <= 5, `product ${p.id} has ${own.length} variants`)
      assert.equal((p.variants as unknown[]).length, own.length)
      if (p.hasUnlimitedStock) assert.equal(p.totalStock, null)
      else assert.equal(p.totalStock, own.reduce((s, v) => s + (v.stock as number), 0))
      assert.equal(p.defaultSku, own.find((v) => v.isDefault)?.sku)
    }
    // Links point at records that exist.
    const userIds = ids(users)
    const entryIds = ids(entries)
    const sectionHandles = new Set(sections.map((s) => s.handle))
    assert.ok(entries.every((e) => sectionHandles.has(e.section) && (e.authorId === null || userIds.has(e.authorId))))
    assert.ok(entries.some((e) => e.status !== 'live'), 'entries span statuses')
    assert.ok(entries.every((e) => typeof e.fields === 'object' && Object.keys(e.fields as object).length > 0), 'entries have custom fields')
    assert.equal(new Set(entries.map((e) => e.section)).size, sectionHandles.size, 'entries in every section')
    assert.ok(addresses.every((a) => userIds.has(a.ownerId)))
    assert.ok(blocks.every((b) => entryIds.has(b.ownerId)))
    assert.ok(categories.some((c) => c.parentId !== null && (c.level as number) >= 3), 'categories nest')
    assert.ok(sections.every((s) => (s.entryTypes as unknown[]).length > 0))
    const variantIds = ids(variants)
    assert.ok(orders.every((o) => (o.lineItems as { variantId: number }[]).every((l) => variantIds.has(l.variantId))))
    assert.ok(orders.filter((o) => o.isCompleted).every((o) => (o.lineItems as unknown[]).length >= 1))
    const skus = new Set(variants.map((v) => v.sku))
    assert.ok(transfers.every((tr) => (tr.lines as { sku: string }[]).every((l) => skus.has(l.sku))))
    assertNoInternals(res.stderr)

    // The store is no longer empty: seeding again refuses instead of failing half-way.
    const again = await runCli(['seed', '--demo'], { env })
    assert.equal(again.code, 1)
    assert.match(again.stderr, /^gatehouse: the store already has records; demo data goes into an empty database/)
  })
}

test('the same seed gives the same data; another seed gives other data', async (t) => {
  const databases = await Promise.all([testDatabase('sqlite'), testDatabase('sqlite'), testDatabase('sqlite')])
  t.after(() => Promise.all(databases.map((d) => d.destroy())))
  const now = Date.now()
  const content = async (database: TestDatabase, seed: number) => {
    await seedDemo(new ContentStore(database, defaultRegistry), { seed, now })
    const strip = (d: Record<string, unknown>) => { const { uid: _u, createdAt: _c, updatedAt: _up, ...rest } = d; return rest }
    return {
      entries: (await docs(database.db, 'entries')).map(strip),
      orders: (await docs(database.db, 'orders')).map(strip),
    }
  }
  const a = await content(databases[0], 7)
  const b = await content(databases[1], 7)
  const c = await content(databases[2], 8)
  assert.deepEqual(a, b)
  assert.notDeepEqual(a.entries.map((e) => e.title), c.entries.map((e) => e.title))
})

test('dates that say something already happened are never later than the moment of seeding', async (t) => {
  const database = await testDatabase('sqlite')
  t.after(() => database.destroy())
  // Seeding a minute after midnight: a date drawn anywhere in "today" would lie in the future.
  const now = Date.UTC(2026, 0, 15, 0, 1)
  await seedDemo(new ContentStore(database, defaultRegistry), { now })
  const past: [table: string, field: string, when?: (d: Record<string, unknown>) => boolean][] = [
    ['orders', 'dateOrdered'], ['users', 'lastLoginAt'], ['entries', 'postDate', (e) => e.status !== 'pending'],
    ['entries', 'expiryDate'], ['products', 'postDate'], ['subscriptions', 'dateCanceled'],
    ['subscriptions', 'dateExpired'], ['subscriptions', 'dateSuspended'],
  ]
  let checked = 0
  for (const [table, field, when] of past) {
    for (const d of await docs(database.db, table)) {
      if (d[field] === null || d[field] === undefined || (when && !when(d))) continue
      checked++
      assert.ok(Date.parse(d[field] as string) <= now, `${table} ${String(d.id)} ${field} ${String(d[field])} is after ${new Date(now).toISOString()}`)
    }
  }
  assert.ok(checked > 1000, `checked ${checked} dates`)
  // Pending entries are scheduled: their post dates lie ahead.
  assert.ok((await docs(database.db, 'entries')).filter((e) => e.status === 'pending').every((e) => Date.parse(e.postDate as string) > now))
})

// With a webhook configured, demo records queue one delivery each (thousands a receiver never
// asked for); `--no-webhooks` seeds the same data, change log included, and queues none.
const WEBHOOK_ENV = { PLUGIN_GATEHOUSE_WEBHOOK_URL: 'http://127.0.0.1:9/hook', PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'seed-test-secret-0123456789abcdef' }
const countOf = async (db: Db, table: string) => Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)

for (const dialect of await testDialects()) {
  test(`${dialect}: seed --demo --no-webhooks queues no webhook deliveries while a webhook is configured`, async (t) => {
    const target = await cliDatabase(dialect)
    t.after(() => target.destroy())
    const res = await runCli(['seed', '--demo', '--no-webhooks'], { env: { PLUGIN_GATEHOUSE_DATABASE_URL: target.url, ...WEBHOOK_ENV } })
    assert.equal(res.code, 0, res.stderr)
    assert.match(res.stdout, /^No webhook deliveries were queued \(--no-webhooks\)\.$/m)
    const database = target.open()
    t.after(() => database.close())
    assert.equal(await countOf(database.db, 'webhook_deliveries'), 0)
    assert.ok(await countOf(database.db, 'change_log') > 2000, 'the change log records every write')
  })
}

test('sqlite: seed --demo without the flag queues the demo records\' events when a webhook is configured', async (t) => {
  const target = await cliDatabase('sqlite')
  t.after(() => target.destroy())
  const res = await runCli(['seed', '--demo'], { env: { PLUGIN_GATEHOUSE_DATABASE_URL: target.url, ...WEBHOOK_ENV } })
  assert.equal(res.code, 0, res.stderr)
  assert.doesNotMatch(res.stdout, /No webhook deliveries/)
  const database = target.open()
  t.after(() => database.close())
  assert.ok(await countOf(database.db, 'webhook_deliveries') > 500)
})
