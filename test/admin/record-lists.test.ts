// GET /gatehouse/admin/v1/{family} lists records with the machine API's parameters and
// paging (the same list operation), read as an admin: sensitive fields and every status
// included, whatever the machine API's flags say.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { adminClient, adminTestApp, dataOf } from './helpers/admin-client.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: admin lists page like the machine API and show what only admins see`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    await seedSmallCatalog(app.services.store)
    const admin = adminClient(app)

    // The machine API's defaults (live entries), but every status on asking (no
    // entries:read_all_statuses needed), and sensitive order fields included.
    assert.deepEqual(dataOf(await admin.get('/entries?fields=slug')).map((e: { slug: string }) => e.slug), ['hello-world'])
    const all = dataOf(await admin.get('/entries?fields=slug,status&status=all'))
    assert.deepEqual(all.map((e: { slug: string }) => e.slug).sort(), ['draft-thoughts', 'hello-world'])
    const orders = dataOf(await admin.get('/orders?fields=reference,email'))
    assert.deepEqual(orders, [{ reference: 'ORD-1', email: 'buyer@example.com' }])

    // Keyset paging: limit, nextCursor, the cursor bound to its query.
    const page1 = await admin.get('/variants?limit=2&fields=sku')
    const body1 = page1.json()
    assert.equal(page1.statusCode, 200)
    assert.deepEqual(Object.keys(body1), ['ok', 'data', 'pagination', 'meta', 'requestId'])
    assert.equal(body1.pagination.hasMore, true)
    assert.deepEqual(body1.meta, { mode: 'full' })
    const page2 = (await admin.get(`/variants?limit=2&fields=sku&cursor=${encodeURIComponent(body1.pagination.nextCursor)}`)).json()
    assert.deepEqual(page2.pagination, { hasMore: false, nextCursor: null })
    const skus = [...body1.data, ...page2.data].map((v: { sku: string }) => v.sku)
    assert.deepEqual(skus.sort(), ['BLUE-M', 'BLUE-S', 'GIFT'])
    const wrongQuery = await admin.get(`/variants?limit=2&fields=sku&status=all&cursor=${encodeURIComponent(body1.pagination.nextCursor)}`)
    assert.equal(wrongQuery.statusCode, 400)
    assert.equal(wrongQuery.json().error.details[0].param, 'cursor')

    // The same page the machine API gives a caller holding every variant scope.
    const machine = (await app.get('/gatehouse/v1/variants?limit=2&fields=sku', await app.issueToken(['variants:read']))).json()
    assert.deepEqual(machine.data, body1.data)

    // Families behind a machine-API flag and internal ones are listed too.
    assert.equal(dataOf(await admin.get('/users?status=all&fields=username,email')).length, 2)
    assert.equal(dataOf(await admin.get('/users?fields=email'))[0].email, 'ada@example.com')
    assert.equal(dataOf(await admin.get('/locations')).length, 2)

    // Bad parameters are 400s naming them, never 5xx; filters and updatedSince work as on the machine API.
    const bad = await admin.get('/products?limit=0&stauts=all')
    assert.equal(bad.statusCode, 400)
    assert.deepEqual(bad.json().error.details.map((d: { param: string }) => d.param).sort(), ['limit', 'stauts'])
    assert.deepEqual(dataOf(await admin.get('/products?filter=slug:gift-card&fields=title')), [{ title: 'Gift card' }])
    assert.equal((await admin.get('/products?updatedSince=2000-01-01T00:00:00Z')).json().meta.mode, 'incremental')

    // Still admin-only.
    assert.equal((await adminClient(app, null).get('/orders')).statusCode, 401)
  })
}
