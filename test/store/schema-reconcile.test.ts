// Declarations own their tables. On a database that already has records, reconciliation
// creates a family's missing table and a new indexed column (filled from the stored
// documents, so queries on it are right at once), each as a recorded schema step; a dry run
// lists the steps and changes nothing; a column no longer declared or declared with another
// type stops everything with a message naming the family, the column and what to do.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Type } from '@sinclair/typebox'
import { declareResource, type Resource } from '../../src/resources/declare.js'
import { allResources, createRegistry, defaultRegistry } from '../../src/resources/index.js'
import { orders, products } from '../../src/resources/commerce.js'
import { entries } from '../../src/resources/content.js'
import { ContentStore } from '../../src/store/content-store.js'
import { RecordReader, type Condition } from '../../src/store/record-query.js'
import { openDatabase } from '../../src/store/database.js'
import { migrations } from '../../src/store/migrations/index.js'
import { migrateSchema, reconcileSchema, SchemaMismatchError, SchemaStepError } from '../../src/store/schema-reconcile.js'
import { schemaSnapshot } from '../helpers/schema-snapshot.js'
import { emptyTestDatabase, testDatabase, testDialects, type TestDatabase } from '../helpers/test-app.js'

/** A family that exists only in this test. */
const coupons = declareResource({
  type: 'coupons', changeType: 'coupons', table: 'coupons', summary: 'Discount coupons',
  scope: 'coupons:read',
  columns: { code: { type: 'text', unique: true }, percentOff: { type: 'real' }, active: { type: 'boolean' }, expiresAt: { type: 'timestamp' } },
  sort: { allowed: ['updatedAt', 'createdAt'] },
  selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'code', column: 'code', type: 'text' }],
  properties: {
    code: Type.String({ minLength: 1 }), percentOff: Type.Number(), active: Type.Boolean(),
    expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  required: ['code'],
})

/** `r` with other indexed columns: the same family, declared as a later version would. */
const withColumns = (r: Resource, columns: Resource['columns']) => declareResource({ ...r, columns })
const replacing = (...changed: Resource[]) => allResources.map((r) => changed.find((c) => c.type === r.type) ?? r)

/** Steps a database had when a test began (today's declarations reconciled): a test asserts its own. */
const baselines = new WeakMap<TestDatabase, number>()

const schemaSteps = async (db: TestDatabase) => (await db.db.selectFrom('schema_steps').select(['id', 'resource_type', 'kind', 'target', 'rows_filled']).orderBy('id').execute())
  .filter((s) => Number(s.id) > (baselines.get(db) ?? 0))
  .map(({ id: _id, ...step }) => step)

const page = { sort: 'updatedAt', desc: false, limit: 50, withSensitive: false } as const

async function seeded(dialect: 'sqlite' | 'postgres') {
  const db = await testDatabase(dialect)
  await migrateSchema(db, allResources)
  const top = await db.db.selectFrom('schema_steps').select((eb) => eb.fn.max('id').as('top')).executeTakeFirst()
  baselines.set(db, Number(top?.top ?? 0))
  const store = new ContentStore(db, defaultRegistry)
  const order = (n: number, extra: Record<string, unknown>) => store.create('orders', { number: n.toString(16).padStart(32, '0'), status: 'processing', currency: 'EUR', ...extra })
  const o1 = await order(1, { totalPrice: 12.5, isCompleted: true, email: 'ann@example.com' })
  const o2 = await order(2, { status: 'cart', totalPrice: 30, isCompleted: false, email: 'bob@example.com' })
  const o3 = await order(3, { totalPrice: 12.5, isCompleted: true, email: null })
  await store.create('sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [] })
  const e1 = await store.create('entries', { section: 'news', type: 'a', title: 'Old', slug: 'old', postDate: '2024-01-02T03:04:05.678Z' })
  const e2 = await store.create('entries', { section: 'news', type: 'a', title: 'New', slug: 'new', postDate: '2024-07-01T00:00:00+02:00' })
  const e3 = await store.create('entries', { section: 'news', type: 'a', title: 'Undated', slug: 'undated' })
  return { db, store, ids: { o1: o1.id as number, o2: o2.id as number, o3: o3.id as number, e1: e1.id as number, e2: e2.id as number, e3: e3.id as number } }
}

for (const dialect of await testDialects()) {
  test(`${dialect}: a family declared only in a test gets its table on an existing database, as a recorded step a dry run lists first`, async (t) => {
    const { db } = await seeded(dialect)
    t.after(() => db.destroy())
    const resources = [...allResources, coupons]
    const before = await schemaSnapshot(db)

    const dry = await migrateSchema(db, resources, { dryRun: true })
    assert.equal(dry.dryRun, true)
    assert.ok(dry.migrations.every((m) => m.status === 'already-applied'))
    // Its table, then the side table of its exact-filter terms (src/store/record-terms.ts).
    assert.deepEqual(dry.schemaSteps.map((s) => [s.kind, s.resourceType, s.target, s.status]), [['create-table', 'coupons', 'coupons', 'pending'], ['create-terms', 'coupons', 'coupons_terms', 'pending']])
    assert.deepEqual(dry.problems, [])
    assert.deepEqual(await schemaSnapshot(db), before, 'a dry run changes nothing')
    assert.deepEqual(await schemaSteps(db), [])

    const run = await migrateSchema(db, resources)
    assert.deepEqual(run.schemaSteps.map((s) => [s.kind, s.resourceType, s.target, s.status]), [['create-table', 'coupons', 'coupons', 'applied'], ['create-terms', 'coupons', 'coupons_terms', 'applied']])
    assert.deepEqual(await schemaSteps(db), [
      { resource_type: 'coupons', kind: 'create-table', target: 'coupons', rows_filled: 0 },
      { resource_type: 'coupons', kind: 'create-terms', target: 'coupons_terms', rows_filled: 0 },
    ])

    const table = (await db.adapter.describeTables(db.db)).find((x) => x.name === 'coupons')
    assert.ok(table)
    const big = db.adapter.bigintType
    assert.deepEqual(table.columns.map((c) => [c.name, c.type]), [
      ['id', dialect === 'sqlite' ? 'integer' : 'bigint'], ['uid', 'text'], ['created_at', big], ['updated_at', big],
      ['doc', db.adapter.jsonType], ['sensitive', db.adapter.jsonType],
      ['code', 'text'], ['percent_off', db.adapter.doubleType], ['active', db.adapter.booleanType], ['expires_at', big],
    ])
    const indexes = Object.fromEntries(table.indexes.filter((i) => i.name.startsWith('coupons_') && !/_(pkey|key)$/.test(i.name)).map((i) => [i.name, [i.unique, ...i.columns]]))
    assert.deepEqual(indexes, {
      coupons_updated: [false, 'updated_at', 'id'],
      coupons_code_unique: [true, 'code'],
      coupons_code_updated: [false, 'code', 'updated_at', 'id'],
      coupons_percent_off_updated: [false, 'percent_off', 'updated_at', 'id'],
      coupons_active_updated: [false, 'active', 'updated_at', 'id'],
      coupons_expires_at_updated: [false, 'expires_at', 'updated_at', 'id'],
      coupons_created: [false, 'created_at', 'id'],
      // Exact filters at any path: the document as jsonb (no search columns, so no trigram index).
      ...(dialect === 'postgres' ? { coupons_doc_search: [false, 'gatehouse_search_document(doc)'] } : {}),
    })

    // The write service stores coupons in it, and the reader queries its columns.
    const store = new ContentStore(db, createRegistry(resources))
    const spring = await store.create('coupons', { code: 'SPRING', percentOff: 12.5, active: true, expiresAt: '2030-01-01T00:00:00Z' })
    await store.create('coupons', { code: 'WINTER', percentOff: 12.5, active: false, expiresAt: null })
    const reader = new RecordReader(db)
    const found = await reader.list(coupons, { ...page, conditions: [{ kind: 'eq', column: 'active', value: true }, { kind: 'eq', column: 'percentOff', value: 12.5 }] })
    assert.deepEqual(found.map((r) => r.id), [spring.id])
    await assert.rejects(store.create('coupons', { code: 'SPRING' }), (err: Error & { details?: unknown }) => {
      assert.deepEqual(err.details, [{ param: 'code', problem: 'already used by another record' }])
      return true
    })

    const again = await migrateSchema(db, resources)
    assert.deepEqual(again.schemaSteps, [], 'a second run has nothing to do')
  })

  test(`${dialect}: a dry run on a database never migrated lists what a run would do and creates nothing`, async (t) => {
    const db = await emptyTestDatabase(dialect)
    t.after(() => db.destroy())
    const dry = await migrateSchema(db, [...allResources, coupons], { dryRun: true })
    assert.deepEqual(dry.migrations.map((m) => m.status), migrations.map(() => 'pending'))
    // Planned after the migrations it would run: the family 001 does not create, beside what
    // today's declarations add to 001's tables (planned the same without coupons).
    const declared = await migrateSchema(db, allResources, { dryRun: true })
    assert.deepEqual(dry.schemaSteps.filter((s) => s.resourceType === 'coupons').map((s) => [s.kind, s.target]), [['create-table', 'coupons'], ['create-terms', 'coupons_terms']])
    assert.deepEqual(dry.schemaSteps.filter((s) => s.resourceType !== 'coupons'), declared.schemaSteps)
    assert.deepEqual(await schemaSnapshot(db), {})
  })

  test(`${dialect}: a new indexed column on an existing family is added and filled from documents and sensitive parts`, async (t) => {
    const { db, ids } = await seeded(dialect)
    t.after(() => db.destroy())
    const orders2 = withColumns(orders, { ...orders.columns, totalPrice: { type: 'real' }, email: { type: 'text', unique: true } })
    const entries2 = withColumns(entries, { ...entries.columns, postDate: { type: 'timestamp' } })
    const resources = replacing(orders2, entries2)

    const dry = await migrateSchema(db, resources, { dryRun: true })
    // A property that becomes a column leaves the family's terms: they are made again.
    assert.deepEqual(dry.schemaSteps.map((s) => s.target), ['orders.total_price', 'orders.email', 'orders_terms', 'entries.post_date', 'entries_terms'])

    const steps = await reconcileSchema(db, resources)
    assert.deepEqual(steps.map((s) => [s.kind, s.target, s.rowsFilled]), [
      ['add-column', 'orders.total_price', 3], ['add-column', 'orders.email', 2], ['rebuild-terms', 'orders_terms', 3],
      ['add-column', 'entries.post_date', 2], ['rebuild-terms', 'entries_terms', 3],
    ])
    assert.match(steps[1].description, /orders_email_unique/)
    assert.deepEqual((await schemaSteps(db)).map((s) => [s.resource_type, s.kind, s.target, Number(s.rows_filled)]), [
      ['orders', 'add-column', 'orders.total_price', 3], ['orders', 'add-column', 'orders.email', 2], ['orders', 'rebuild-terms', 'orders_terms', 3],
      ['entries', 'add-column', 'entries.post_date', 2], ['entries', 'rebuild-terms', 'entries_terms', 3],
    ])

    const reader = new RecordReader(db)
    const idsWhere = async (r: Resource, c: Condition) => (await reader.list(r, { ...page, conditions: [c] })).map((x) => x.id)
    assert.deepEqual(await idsWhere(orders2, { kind: 'eq', column: 'totalPrice', value: 12.5 }), [ids.o1, ids.o3])
    assert.deepEqual(await idsWhere(orders2, { kind: 'eq', column: 'isCompleted', value: false }), [ids.o2])
    assert.deepEqual(await idsWhere(orders2, { kind: 'eq', column: 'email', value: 'bob@example.com' }), [ids.o2], 'filled from the sensitive part')
    // Timestamps hold milliseconds as a write stores them, whatever the offset in the document.
    assert.deepEqual(await idsWhere(entries2, { kind: 'gte', column: 'postDate', value: Date.parse('2024-06-30T22:00:00Z') }), [ids.e2])
    assert.deepEqual(await idsWhere(entries2, { kind: 'gte', column: 'postDate', value: Date.parse('2024-01-02T03:04:05.678Z') }), [ids.e1, ids.e2])
    const table = (await db.adapter.describeTables(db.db)).find((x) => x.name === 'orders')
    assert.deepEqual(table?.indexes.find((i) => i.name === 'orders_email_unique'), { name: 'orders_email_unique', columns: ['email'], unique: true, method: 'btree', where: null })
    // Writes with the new declaration keep the column current.
    const store2 = new ContentStore(db, createRegistry(resources))
    await store2.update('orders', ids.o3, { totalPrice: 30 })
    assert.deepEqual(await idsWhere(orders2, { kind: 'eq', column: 'totalPrice', value: 30 }), [ids.o2, ids.o3])
    assert.deepEqual((await migrateSchema(db, resources)).schemaSteps, [])
  })

  test(`${dialect}: a unique index over records that share values stops its step and leaves nothing behind`, async (t) => {
    const { db } = await seeded(dialect)
    t.after(() => db.destroy())
    const before = await schemaSnapshot(db)
    const orders2 = withColumns(orders, { ...orders.columns, currency: { type: 'text', unique: true } })
    await assert.rejects(reconcileSchema(db, replacing(orders2)), (err: unknown) => {
      assert.ok(err instanceof SchemaStepError)
      assert.match(err.message, /^orders: cannot create unique index orders_currency_unique on orders \(currency\): some records share values/)
      return true
    })
    assert.deepEqual(await schemaSnapshot(db), before, 'the column was not left half-made')
    assert.deepEqual(await schemaSteps(db), [])
  })

  test(`${dialect}: a removed or retyped column stops before any change, naming the family, the column and what to do`, async (t) => {
    const { db, store } = await seeded(dialect)
    t.after(() => db.destroy())
    const product = await store.create('products', { type: 'shirt', title: 'Shirt', slug: 'shirt' })
    const before = await schemaSnapshot(db)
    const { type: _removed, ...withoutType } = products.columns
    const removed = withColumns(products, withoutType)
    const retyped = withColumns(products, { ...products.columns, totalStock: { type: 'text' } })

    // coupons is listed too: its table must not be created when another family stops the run.
    await assert.rejects(migrateSchema(db, [...replacing(removed), coupons]), (err: unknown) => {
      assert.ok(err instanceof SchemaMismatchError)
      assert.deepEqual(err.problems.map((p) => [p.resourceType, p.kind, p.column]), [['products', 'removed-column', 'type']])
      assert.match(err.message, /products: column "type" of table products is no longer declared\. Its values are also in each record's stored document: run `gatehouse migrate --drop-removed` to drop the column/)
      return true
    })
    await assert.rejects(migrateSchema(db, [...replacing(retyped), coupons]), (err: unknown) => {
      assert.ok(err instanceof SchemaMismatchError)
      assert.deepEqual(err.problems.map((p) => [p.resourceType, p.kind, p.column]), [['products', 'retyped-column', 'total_stock']])
      assert.match(err.message, /products: column "total_stock" \(totalStock\) of table products is \w+ in the database but declared text \(text\)\. Gatehouse does not convert columns/)
      return true
    })
    assert.deepEqual(await schemaSnapshot(db), before)
    assert.deepEqual(await schemaSteps(db), [])

    // A dry run reports the problem instead of throwing; --drop-removed turns it into a step.
    const dry = await migrateSchema(db, replacing(removed), { dryRun: true })
    assert.deepEqual(dry.problems.map((p) => p.column), ['type'])
    const dropped = await migrateSchema(db, replacing(removed), { dropRemoved: true })
    // `type` is a property with terms again: the family's terms are made again from the documents.
    assert.deepEqual(dropped.schemaSteps.map((s) => [s.kind, s.target]), [['drop-column', 'products.type'], ['rebuild-terms', 'products_terms']])
    const table = (await db.adapter.describeTables(db.db)).find((x) => x.name === 'products')
    assert.equal(table?.columns.some((c) => c.name === 'type'), false)
    assert.equal(table?.indexes.some((i) => i.columns.includes('type')), false)
    assert.equal((await store.get('products', product.id as number))?.type, 'shirt', 'the value stays in the document')
  })

  // PostgreSQL only: two better-sqlite3 connections in one process would block each other's
  // event loop (SQLite serialises writers with BEGIN IMMEDIATE across processes).
  if (dialect === 'postgres') test(`${dialect}: processes reconciling at once apply each step once`, async (t) => {
    const { db } = await seeded(dialect)
    t.after(() => db.destroy())
    const other = openDatabase(db.url, { schema: db.schema })
    t.after(() => other.close())
    const resources = [...allResources, coupons]
    const [a, b] = await Promise.all([reconcileSchema(db, resources), reconcileSchema(other, resources)])
    assert.equal(a.length + b.length, 2)
    assert.deepEqual((await schemaSteps(db)).map((s) => s.target), ['coupons', 'coupons_terms'])
  })
}
