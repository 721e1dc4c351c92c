// Derived values stay right after variant changes: a variant's isAvailable, and its
// product's totalStock, hasUnlimitedStock, defaultSku, defaultPrice and variants[]
// summary, through creates, stock and status changes, moves between products and
// deletes. Writes go through the admin API; the stored documents are also read back
// through the machine API, which serves them as stored.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects, type TestApp } from '../helpers/test-app.js'
import { adminClient, adminTestApp, changeRows, dataOf } from '../admin/helpers/admin-client.js'

interface Variant { id: number; sku: string; title: string; status: string; price: number; stock: number; hasUnlimitedStock: boolean; isAvailable: boolean; isDefault: boolean }

const summary = (v: Variant) => ({
  id: v.id, sku: v.sku, title: v.title, price: v.price, stock: v.stock,
  hasUnlimitedStock: v.hasUnlimitedStock, isAvailable: v.isAvailable, isDefault: v.isDefault,
})

for (const dialect of await testDialects()) {
  test(`${dialect}: variant writes keep product stock, defaults, summary and availability right`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const admin = adminClient(app)
    const reader = await app.issueToken(['products:read', 'variants:read'])
    const product = async (id: number) => dataOf(await admin.get(`/products/${id}`))
    const variant = async (id: number) => dataOf(await admin.get(`/variants/${id}`)) as Variant
    /** The product as the machine API serves it equals the admin view. */
    const served = async (id: number) => dataOf(await app.get(`/gatehouse/v1/products/show?id=${id}`, reader))

    const p = dataOf(await admin.post('/products', { type: 'apparel', title: 'Harbour Hoodie', slug: 'harbour-hoodie' }), 201)
    const q = dataOf(await admin.post('/products', { type: 'apparel', title: 'Dock Cap', slug: 'dock-cap' }), 201)

    const a = dataOf(await admin.post('/variants', { productId: p.id, sku: 'HH-S', title: 'S', price: 70, stock: 5 }), 201) as Variant
    const b = dataOf(await admin.post('/variants', { productId: p.id, sku: 'HH-M', title: 'M', price: 75, stock: 3, isDefault: true }), 201) as Variant
    assert.equal(a.isAvailable, true)
    assert.equal(a.status, 'live', 'the default status')
    let pp = await product(p.id)
    assert.equal(pp.totalStock, 8)
    assert.equal(pp.hasUnlimitedStock, false)
    assert.equal(pp.defaultSku, 'HH-M', 'the variant marked default')
    assert.equal(pp.defaultPrice, 75)
    assert.deepEqual(pp.variants, [summary(a), summary(b)])
    assert.deepEqual(await served(p.id), pp)

    // Stock to zero: the variant is unavailable, the product total drops.
    const a0 = dataOf(await admin.patch(`/variants/${a.id}`, { stock: 0 })) as Variant
    assert.equal(a0.isAvailable, false)
    pp = await product(p.id)
    assert.equal(pp.totalStock, 3)
    assert.deepEqual(pp.variants, [summary(a0), summary(b)])

    // A disabled variant is unavailable whatever its stock, but its stock still counts.
    const aOff = dataOf(await admin.patch(`/variants/${a.id}`, { status: 'disabled', stock: 10 })) as Variant
    assert.equal(aOff.isAvailable, false)
    assert.equal((await product(p.id)).totalStock, 13)
    const aOn = dataOf(await admin.patch(`/variants/${a.id}`, { status: 'live' })) as Variant
    assert.equal(aOn.isAvailable, true)

    // Unlimited stock on one variant: the product is unlimited and totalStock is null.
    const bU = dataOf(await admin.patch(`/variants/${b.id}`, { hasUnlimitedStock: true, stock: 0 })) as Variant
    assert.equal(bU.isAvailable, true, 'unlimited stock is available with stock 0')
    pp = await product(p.id)
    assert.equal(pp.hasUnlimitedStock, true)
    assert.equal(pp.totalStock, null)
    assert.deepEqual(await served(p.id), pp)

    // Price of the default variant is the product's default price.
    dataOf(await admin.patch(`/variants/${b.id}`, { price: 72.5 }))
    assert.equal((await product(p.id)).defaultPrice, 72.5)

    // Moving the default, unlimited variant to Q updates both products.
    const bMoved = dataOf(await admin.patch(`/variants/${b.id}`, { productId: q.id })) as Variant
    pp = await product(p.id)
    const qq = await product(q.id)
    assert.deepEqual(pp.variants, [summary(await variant(a.id))])
    assert.equal(pp.hasUnlimitedStock, false)
    assert.equal(pp.totalStock, 10)
    assert.equal(pp.defaultSku, 'HH-S', 'falls back to the first variant')
    assert.equal(pp.defaultPrice, 70)
    assert.deepEqual(qq.variants, [summary(bMoved)])
    assert.equal(qq.hasUnlimitedStock, true)
    assert.equal(qq.totalStock, null)
    assert.equal(qq.defaultSku, 'HH-M')
    assert.deepEqual(await served(q.id), qq)

    // A variant's product must exist; a move to nowhere changes nothing.
    const bad = await admin.patch(`/variants/${a.id}`, { productId: 999999 })
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.json().error.details[0].param, 'productId')
    assert.deepEqual(await product(p.id), pp)

    // Deleting the last variant leaves an empty product.
    assert.equal((await admin.del(`/variants/${a.id}`)).statusCode, 204)
    pp = await product(p.id)
    assert.deepEqual(
      { totalStock: pp.totalStock, hasUnlimitedStock: pp.hasUnlimitedStock, defaultSku: pp.defaultSku, defaultPrice: pp.defaultPrice, variants: pp.variants },
      { totalStock: 0, hasUnlimitedStock: false, defaultSku: null, defaultPrice: null, variants: [] },
    )
    assert.deepEqual(await served(p.id), pp)
  })

  test(`${dialect}: each variant write records the product's update in the same change-log batch`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const admin = adminClient(app)
    const p = dataOf(await admin.post('/products', { type: 'apparel', title: 'Tee', slug: 'tee' }), 201)
    const v = dataOf(await admin.post('/variants', { productId: p.id, sku: 'T-1', title: 'One', price: 10, stock: 1 }), 201)
    const before = await changeRows(app.database.db)
    dataOf(await admin.patch(`/variants/${v.id}`, { stock: 4 }))
    const after = (await changeRows(app.database.db)).slice(before.length)
    assert.deepEqual(after.map((c) => [c.resourceType, c.resourceId, c.action]), [['variants', v.id, 'updated'], ['products', p.id, 'updated']])
    assert.equal(after[1].seq, after[0].seq + 1, 'adjacent sequence numbers: one transaction')
    const product = dataOf(await admin.get(`/products/${p.id}`))
    assert.ok(Date.parse(product.updatedAt) >= Date.parse(p.updatedAt))
    assert.equal(product.totalStock, 4)
  })

  test(`${dialect}: deleting a product deletes its variants, each with a tombstone`, async (t) => {
    const app: TestApp = await adminTestApp(dialect)
    t.after(() => app.close())
    const admin = adminClient(app)
    const p = dataOf(await admin.post('/products', { type: 'apparel', title: 'Scarf', slug: 'scarf' }), 201)
    const other = dataOf(await admin.post('/products', { type: 'apparel', title: 'Gloves', slug: 'gloves' }), 201)
    const ids: number[] = []
    for (const sku of ['SC-RED', 'SC-BLUE', 'SC-GREEN']) {
      ids.push(dataOf(await admin.post('/variants', { productId: p.id, sku, title: sku, price: 20, stock: 2 }), 201).id)
    }
    const keep = dataOf(await admin.post('/variants', { productId: other.id, sku: 'GL-1', title: 'Gloves', price: 15, stock: 9 }), 201)
    const before = await changeRows(app.database.db)

    assert.equal((await admin.del(`/products/${p.id}`)).statusCode, 204)
    assert.equal((await admin.get(`/products/${p.id}`)).statusCode, 404)
    for (const id of ids) assert.equal((await admin.get(`/variants/${id}`)).statusCode, 404)
    assert.equal(dataOf(await admin.get(`/variants/${keep.id}`)).sku, 'GL-1')
    assert.equal(dataOf(await admin.get(`/products/${other.id}`)).totalStock, 9)

    const tombstones = (await changeRows(app.database.db)).slice(before.length)
    assert.deepEqual(tombstones.map((c) => [c.resourceType, c.resourceId, c.action]), [
      ...ids.map((id) => ['variants', id, 'deleted']),
      ['products', p.id, 'deleted'],
    ], 'tombstones only; no update of the product being deleted')

    // The change feed serves them with a null snapshot.
    const token = await app.issueToken(['changes:read', 'products:read', 'variants:read'])
    const feed = dataOf(await app.get('/gatehouse/v1/changes?limit=200', token))
    const deletes = feed.filter((c: { action: string }) => c.action === 'deleted')
    assert.deepEqual(deletes.map((c: { resourceType: string; resourceId: number; snapshot: unknown }) => [c.resourceType, c.resourceId, c.snapshot]), [
      ...ids.map((id) => ['variants', id, null]),
      ['products', p.id, null],
    ])
  })
}
