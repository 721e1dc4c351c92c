// Writes keep the content's own rules whatever order they come in (found by a review of the
// admin API): a section's handle does not change under the entries and drafts that name it;
// an entry's type is one its section lists; a product has one default variant;
// a category never becomes its own ancestor, its children stay in its group, and its subtree's
// levels follow it when it moves; and a number a body gives is one JavaScript holds exactly.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { adminClient, adminTestApp, dataOf } from './helpers/admin-client.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: a referenced section keeps its handle; categories stay a tree in one group with levels that follow; numbers are exact`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const admin = adminClient(app)

    // A section's handle is what entries refer by: renamed under them, they would name nothing.
    const section = dataOf(await admin.post('/sections', { handle: 'rn1', name: 'R', type: 'channel' }), 201)
    const entry = dataOf(await admin.post('/entries', { section: 'rn1', type: 'article', title: 'R', slug: 'rn-entry' }), 201)
    const renamed = await admin.patch(`/sections/${section.id}`, { handle: 'rn2' })
    assert.equal(renamed.statusCode, 409, renamed.body)
    assert.deepEqual(renamed.json().error.details, [{ param: 'entries.section', problem: '1 entries record still refer to it' }])
    assert.equal(dataOf(await admin.get(`/sections/${section.id}`)).handle, 'rn1')
    assert.equal((await admin.del(`/sections/${section.id}`)).statusCode, 409)
    assert.equal(dataOf(await admin.patch(`/sections/${section.id}`, { name: 'Renamed' })).name, 'Renamed', 'other fields change freely')
    assert.equal((await admin.del(`/entries/${entry.id}`)).statusCode, 204)
    assert.equal(dataOf(await admin.patch(`/sections/${section.id}`, { handle: 'rn2' })).handle, 'rn2', 'free once nothing refers to it')

    // An entry's type is one of its section's entry types when the section lists any.
    dataOf(await admin.post('/sections', { handle: 'typed', name: 'T', type: 'channel', entryTypes: [{ handle: 'post', name: 'Post' }, { handle: 'page', name: 'Page' }] }), 201)
    const typo = await admin.post('/entries', { section: 'typed', type: 'psot', title: 'T', slug: 'typed-1' })
    assert.equal(typo.statusCode, 400, typo.body)
    assert.deepEqual(typo.json().error.details, [{ param: 'type', problem: "must be one of section typed's entry types: post, page" }])
    const typed = dataOf(await admin.post('/entries', { section: 'typed', type: 'page', title: 'T', slug: 'typed-1' }), 201)
    assert.equal((await admin.patch(`/entries/${typed.id}`, { type: 'psot' })).statusCode, 400)
    assert.equal((await admin.patch(`/entries/${typed.id}`, { section: 'rn2' })).statusCode, 200, 'a section that lists none takes any type')

    // Categories: a -> b -> c.
    const a = dataOf(await admin.post('/categories', { group: 'g1', title: 'A', slug: 'a' }), 201)
    const b = dataOf(await admin.post('/categories', { group: 'g1', title: 'B', slug: 'b', parentId: a.id }), 201)
    const c = dataOf(await admin.post('/categories', { group: 'g1', title: 'C', slug: 'c', parentId: b.id }), 201)
    for (const under of [b.id, c.id]) {
      const cycle = await admin.patch(`/categories/${a.id}`, { parentId: under })
      assert.equal(cycle.statusCode, 400, cycle.body)
      assert.equal(cycle.json().error.details[0].param, 'parentId')
      assert.match(cycle.json().error.details[0].problem, /cannot be its own ancestor/)
    }
    const moved = await admin.patch(`/categories/${a.id}`, { group: 'g2' })
    assert.equal(moved.statusCode, 400, moved.body)
    assert.equal(moved.json().error.details[0].param, 'group')
    // b moves under a new root r: b becomes level 3 and c, below it, 4.
    const r = dataOf(await admin.post('/categories', { group: 'g1', title: 'R', slug: 'r' }), 201)
    assert.equal(dataOf(await admin.patch(`/categories/${a.id}`, { parentId: r.id })).level, 2)
    const levels = async () => Object.fromEntries(await Promise.all([a, b, c].map(async (x) => [x.slug, dataOf(await admin.get(`/categories/${x.id}`)).level])))
    assert.deepEqual(await levels(), { a: 2, b: 3, c: 4 })
    assert.equal(dataOf(await admin.patch(`/categories/${a.id}`, { parentId: null })).level, 1)
    assert.deepEqual(await levels(), { a: 1, b: 2, c: 3 })

    // One default variant a product: a new default takes it from the other.
    const hoodie = dataOf(await admin.post('/products', { type: 'apparel', title: 'Hoodie', slug: 'hoodie-x' }), 201)
    const first = dataOf(await admin.post('/variants', { productId: hoodie.id, sku: 'HX-1', title: 'S', price: 1, stock: 1, isDefault: true }), 201)
    const second = dataOf(await admin.post('/variants', { productId: hoodie.id, sku: 'HX-2', title: 'M', price: 2, stock: 1, isDefault: true }), 201)
    assert.deepEqual([dataOf(await admin.get(`/variants/${first.id}`)).isDefault, dataOf(await admin.get(`/variants/${second.id}`)).isDefault], [false, true])
    assert.equal(dataOf(await admin.get(`/products/${hoodie.id}`)).defaultSku, 'HX-2')

    // Numbers beyond ±2^53 − 1 are refused where they are, not stored as another number.
    const product = dataOf(await admin.post('/products', { type: 'apparel', title: 'Big', slug: 'big' }), 201)
    for (const stock of ['1e308', '9007199254740993']) {
      const res = await admin.post('/variants', `{"productId":${product.id},"sku":"BIG-1","title":"t","price":1,"stock":${stock}}`)
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(res.json().error.details[0].param, 'stock')
    }
    assert.equal(dataOf(await admin.post('/variants', { productId: product.id, sku: 'BIG-1', title: 't', price: 1, stock: Number.MAX_SAFE_INTEGER }), 201).stock, Number.MAX_SAFE_INTEGER)
  })
}
