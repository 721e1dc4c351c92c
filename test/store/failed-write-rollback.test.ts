// A failed write leaves neither the record nor a change behind: the write service runs
// validation, the row, derived refreshes, the change log and the change hooks in one
// transaction, so any failure along the way undoes all of it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ApiError } from '../../src/kernel/errors.js'
import { ContentStore } from '../../src/store/content-store.js'
import type { Db } from '../../src/store/database.js'
import { testDatabase, testDialects } from '../helpers/test-app.js'
import { defaultRegistry } from '../../src/resources/index.js'

async function counts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const table of ['products', 'variants', 'tags', 'change_log']) {
    const row = await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()
    out[table] = Number(row?.n ?? 0)
  }
  return out
}

async function rejects(fn: () => Promise<unknown>, check: (err: unknown) => void): Promise<void> {
  let caught: unknown
  try {
    await fn()
  } catch (err) {
    caught = err
  }
  assert.ok(caught !== undefined, 'expected the write to fail')
  check(caught)
}

const invalidFields = (...params: string[]) => (err: unknown) => {
  assert.ok(err instanceof ApiError, String(err))
  assert.equal(err.code, 'INVALID_REQUEST')
  assert.deepEqual(err.details?.map((d) => d.param).sort(), [...params].sort())
}

for (const dialect of await testDialects()) {
  test(`${dialect}: failed writes leave no record and no change`, async (t) => {
    const database = await testDatabase(dialect)
    t.after(() => database.destroy())
    const store = new ContentStore(database, defaultRegistry)
    const product = await store.create('products', { type: 'apparel', title: 'Tee', slug: 'tee' })
    const variant = await store.create('variants', { productId: product.id, sku: 'TEE-1', title: 'One', price: 10, stock: 4 })
    const baseline = await counts(database.db)
    const productBefore = await store.get('products', product.id as number)
    assert.equal(productBefore?.totalStock, 4)

    await t.test('a transaction that creates, updates, then throws', async () => {
      const boom = new Error('step three failed')
      await rejects(() => store.transaction(async (w) => {
        const p = await w.create('products', { type: 'apparel', title: 'Cap', slug: 'cap' })
        await w.create('variants', { productId: p.id, sku: 'CAP-1', title: 'One', price: 5, stock: 1 })
        await w.update('variants', variant.id as number, { stock: 100 })
        throw boom
      }), (err) => assert.equal(err, boom))
      assert.deepEqual(await counts(database.db), baseline)
      assert.equal((await store.get('variants', variant.id as number))?.stock, 4)
      assert.deepEqual(await store.get('products', product.id as number), productBefore, 'derived refresh undone too')
    })

    await t.test('a transaction whose second write is invalid', async () => {
      await rejects(() => store.transaction(async (w) => {
        await w.create('tags', { group: 'materials', title: 'Wool', slug: 'wool' })
        await w.create('tags', { group: 'materials', title: 'Bad', slug: 'Not a slug' })
      }), invalidFields('slug'))
      assert.deepEqual(await counts(database.db), baseline)
    })

    await t.test('a create with invalid fields', async () => {
      await rejects(() => store.create('variants', { productId: product.id, sku: '', title: 'X', price: -1, stock: 1.5, isAvailable: true }),
        invalidFields('sku', 'price', 'stock', 'isAvailable'))
      await rejects(() => store.create('variants', { productId: 987654, sku: 'NOPE', title: 'X', price: 1, stock: 1 }), invalidFields('productId'))
      assert.deepEqual(await counts(database.db), baseline)
    })

    await t.test('a unique violation, alone and after other writes in the transaction', async () => {
      await rejects(() => store.create('variants', { productId: product.id, sku: 'TEE-1', title: 'Dup', price: 10, stock: 1 }), invalidFields('sku'))
      await rejects(() => store.transaction(async (w) => {
        await w.update('variants', variant.id as number, { stock: 50 })
        await w.create('products', { type: 'apparel', title: 'Tee again', slug: 'tee' })
      }), invalidFields('slug'))
      assert.deepEqual(await counts(database.db), baseline)
      assert.deepEqual(await store.get('products', product.id as number), productBefore)
    })

    await t.test('an update with an invalid field or of an unknown id', async () => {
      await rejects(() => store.update('variants', variant.id as number, { stock: 'many' }), invalidFields('stock'))
      await rejects(() => store.update('variants', 424242, { stock: 1 }), (err) => assert.equal((err as ApiError).code, 'NOT_FOUND'))
      await rejects(() => store.remove('products', 424242), (err) => assert.equal((err as ApiError).code, 'NOT_FOUND'))
      assert.deepEqual(await counts(database.db), baseline)
      assert.equal((await store.get('variants', variant.id as number))?.stock, 4)
    })

    await t.test('a change hook (the outbox) that fails undoes the write', async () => {
      const hooked = new ContentStore(database, defaultRegistry)
      let calls = 0
      hooked.addChangeHook(async (_tx, events) => {
        calls++
        assert.deepEqual(events.map((e) => [e.resource.type, e.action]), [['variants', 'deleted'], ['products', 'deleted']])
        throw new Error('outbox unavailable')
      })
      await rejects(() => hooked.remove('products', product.id as number), (err) => assert.match(String(err), /outbox unavailable/))
      assert.equal(calls, 1)
      assert.deepEqual(await counts(database.db), baseline)
      assert.deepEqual(await store.get('products', product.id as number), productBefore)
    })

    // And the store still works afterwards (no transaction left open on PostgreSQL).
    const ok = await store.update('variants', variant.id as number, { stock: 6 })
    assert.equal(ok.stock, 6)
    assert.equal((await store.get('products', product.id as number))?.totalStock, 6)
    assert.equal((await counts(database.db)).change_log, baseline.change_log + 2)
  })
}
