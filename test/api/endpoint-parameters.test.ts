// Per-endpoint parameters from the spec's table: lowStock (every boolean spelling) and its
// threshold, sort, q, lastDays, selector rules with optional narrowing parameters.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'

test('products: lowStock accepts every boolean spelling and honours lowStockThreshold; full-sync only', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    await seedSmallCatalog(app.services.store)
    const token = await app.issueToken(['products:read'])
    const titles = async (q: string) => (await app.get(`/gatehouse/v1/products?${q}`, token)).json().data.map((p: { title: string }) => p.title)
    // Blue shirt: totalStock 3; gift card: unlimited (never low).
    for (const yes of ['true', '1', 'yes', 'on', 'TRUE'.toLowerCase()]) assert.deepEqual(await titles(`lowStock=${yes}`), ['Blue shirt'], yes)
    for (const no of ['false', '0', 'no', 'off']) assert.equal((await titles(`lowStock=${no}`)).length, 2, no)
    assert.deepEqual(await titles('lowStock=true&lowStockThreshold=2'), [])
    assert.deepEqual(await titles('lowStock=true&lowStockThreshold=3'), ['Blue shirt'])
    for (const [q, param] of [['lowStock=maybe', 'lowStock'], ['lowStock=true&lowStockThreshold=-1', 'lowStockThreshold'], ['lowStock=true&updatedSince=2020-01-01T00:00:00Z', 'lowStock']]) {
      const res = await app.get(`/gatehouse/v1/products?${q}`, token)
      assert.equal(res.statusCode, 400, q)
      assert.equal(res.json().error.details[0].param, param, q)
    }
    assert.deepEqual(await titles('sort=title'), ['Blue shirt', 'Gift card'])
    assert.deepEqual(await titles('sort=-title'), ['Gift card', 'Blue shirt'])
    assert.deepEqual(await titles('q=GIFT'), ['Gift card'])
    assert.equal((await app.get('/gatehouse/v1/products?sort=price', token)).statusCode, 400)
  } finally {
    await app.close()
  }
})

test('orders: lastDays keeps recent orders; variants and assets: selectors with narrowing parameters', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    await seedSmallCatalog(app.services.store)
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString()
    await app.services.store.create('orders', { number: 'b'.repeat(32), currency: 'EUR', status: 'shipped', isCompleted: true, dateOrdered: old, totalPrice: 5, totalPaid: 5 })
    const token = await app.issueToken(['orders:read', 'variants:read', 'assets:read', 'categories:read'])
    const numbers = async (q: string) => (await app.get(`/gatehouse/v1/orders?${q}`, token)).json().data.map((o: { number: string }) => o.number[0])
    assert.deepEqual(await numbers(''), ['a', 'b'])
    assert.deepEqual(await numbers('lastDays=30'), ['a'])
    assert.deepEqual(await numbers('lastDays=60'), ['a', 'b'])
    assert.deepEqual(await numbers('status=shipped'), ['b'])
    assert.equal((await app.get('/gatehouse/v1/orders?lastDays=0', token)).statusCode, 400)
    const show = (await app.get(`/gatehouse/v1/orders/show?number=${'a'.repeat(32)}`, token)).json().data
    assert.equal(show.reference, 'ORD-1')
    assert.equal(show.itemTotal, 42)
    assert.equal(show.paidStatus, 'paid')

    const v = (await app.get('/gatehouse/v1/variants/show?sku=BLUE-M', token)).json().data
    assert.equal(v.stock, 0)
    assert.equal(v.isAvailable, false)
    assert.equal((await app.get(`/gatehouse/v1/variants/show?sku=BLUE-M&productId=${v.productId}`, token)).statusCode, 200)
    assert.equal((await app.get(`/gatehouse/v1/variants/show?sku=BLUE-M&productId=${v.productId + 100}`, token)).statusCode, 404)
    assert.equal((await app.get('/gatehouse/v1/variants/show?sku=BLUE-M&id=1', token)).statusCode, 400)
    assert.equal((await app.get('/gatehouse/v1/variants/show', token)).statusCode, 400)
    assert.equal((await app.get('/gatehouse/v1/assets/show?filename=logo.png&volume=images', token)).json().data.width, 64)
    assert.equal((await app.get('/gatehouse/v1/assets/show?filename=logo.png&volume=videos', token)).statusCode, 404)
    const physics = (await app.get('/gatehouse/v1/categories/show?slug=physics&group=topics', token)).json().data
    assert.equal(physics.level, 2)
    assert.deepEqual((await app.get('/gatehouse/v1/variants?productId=' + v.productId, token)).json().data.map((x: { sku: string }) => x.sku), ['BLUE-S', 'BLUE-M'])
  } finally {
    await app.close()
  }
})
