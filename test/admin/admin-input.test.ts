// Bad input to the admin API: a 4xx naming each bad field, and nothing written (neither
// the record nor a change). Unknown ids and types are 404, non-JSON bodies 415, bodies
// over 1 MiB 413; error bodies never carry SQL or internals.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects, type TestResponse } from '../helpers/test-app.js'
import { ADMIN_TOKEN, adminClient, adminTestApp, countRows, dataOf } from './helpers/admin-client.js'

function assertInvalid(res: TestResponse, params: readonly string[]): void {
  assert.equal(res.statusCode, 400, res.body)
  const body = res.json()
  assert.equal(body.error.code, 'INVALID_REQUEST')
  assert.deepEqual(body.error.details.map((d: { param: string }) => d.param).sort(), [...params].sort(), res.body)
  for (const d of body.error.details) assert.ok(typeof d.problem === 'string' && d.problem.length > 0)
  assert.doesNotMatch(res.body, /sqlite|constraint|duplicate key|select |insert |stack/i)
}

for (const dialect of await testDialects()) {
  test(`${dialect}: invalid bodies are 400 naming every bad field, and nothing is written`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const admin = adminClient(app)
    const db = app.database.db

    // Wrong types, a bad pattern, a computed field and an unknown one, all reported at once.
    const many = await admin.post('/products', { type: 'apparel!', title: 42, slug: 'Not A Slug', totalStock: 5, colour: 'red' })
    assertInvalid(many, ['type', 'title', 'slug', 'totalStock', 'colour'])
    assert.equal(many.json().error.details.find((d: { param: string }) => d.param === 'totalStock').problem, 'unknown or read-only property')
    // Missing required fields are each named.
    assertInvalid(await admin.post('/entries', { fields: {} }), ['section', 'type', 'title', 'slug'])
    // A reference to a record that does not exist.
    assertInvalid(await admin.post('/entries', { section: 'nowhere', type: 'article', title: 'T', slug: 't' }), ['section'])
    // Nested: a line item with a bad quantity names its path.
    assertInvalid(await admin.post('/orders', { number: 'f'.repeat(32), currency: 'GBP', lineItems: [{ id: 1, sku: 'A', description: 'A', qty: 0, price: 1, subtotal: 1, variantId: null }] }),
      ['lineItems.0.qty'])
    // Not an object at all, or an empty body.
    assertInvalid(await admin.post('/tags', [1, 2]), ['(body)'])
    assertInvalid(await admin.post('/tags', 'null'), ['(body)'])
    assertInvalid(await admin.post('/tags', ''), ['(body)'])
    assertInvalid(await admin.post('/tags', '{"group": "a",'), ['(body)'])
    assert.equal(await countRows(db, 'products'), 0)
    assert.equal(await countRows(db, 'entries'), 0)
    assert.equal(await countRows(db, 'orders'), 0)
    assert.equal(await countRows(db, 'tags'), 0)
    assert.equal(await countRows(db, 'change_log'), 0)

    // A unique violation: the second product with the same slug is refused by name.
    const first = dataOf(await admin.post('/products', { type: 'apparel', title: 'Tee', slug: 'tee' }), 201)
    const changesBefore = await countRows(db, 'change_log')
    assertInvalid(await admin.post('/products', { type: 'apparel', title: 'Other tee', slug: 'tee' }), ['slug'])
    assert.equal(await countRows(db, 'products'), 1)
    assert.equal(await countRows(db, 'change_log'), changesBefore)

    // Updates: invalid patch, empty patch, read-only fields; the record stays as it was.
    assertInvalid(await admin.patch(`/products/${first.id}`, { status: 'archived', title: '' + 'x'.repeat(300) }), ['status', 'title'])
    assertInvalid(await admin.patch(`/products/${first.id}`, {}), ['(body)'])
    assertInvalid(await admin.patch(`/products/${first.id}`, { id: 99, uid: 'x', createdAt: '2020-01-01T00:00:00Z' }), ['id', 'uid', 'createdAt'])
    const second = dataOf(await admin.post('/products', { type: 'apparel', title: 'Cap', slug: 'cap' }), 201)
    assertInvalid(await admin.patch(`/products/${second.id}`, { slug: 'tee' }), ['slug'])
    assert.deepEqual(dataOf(await admin.get(`/products/${first.id}`)), first)
    assert.equal(dataOf(await admin.get(`/products/${second.id}`)).slug, 'cap')
    assert.equal(await countRows(db, 'change_log'), changesBefore + 1)

    // A credential body: the schema's problems and the service's (an unknown scope, a bad
    // CIDR, a zero duration) are named together; one stage used to hide the next.
    const credentials = await countRows(db, 'credentials')
    assertInvalid(await admin.post('/credentials', { label: 'x', scopes: ['nope:read'], ipAllowlist: ['10.0.0.0/33'], expiresIn: '0d' }), ['scopes', 'ipAllowlist', 'expiresIn'])
    assertInvalid(await admin.post('/credentials', { label: 5, scopes: ['nope:read'], ipAllowlist: ['10.0.0.0/33', 'x'], colour: 1 }), ['label', 'scopes', 'ipAllowlist', 'ipAllowlist', 'colour'])
    assert.equal(await countRows(db, 'credentials'), credentials)
    const made = dataOf(await admin.post('/credentials', { label: 'ok', scopes: ['auth:read'] }), 201)
    assertInvalid(await admin.patch(`/credentials/${made.id}`, { label: '', scopes: ['nope:read'], expiresAt: 'soon' }), ['label', 'scopes', 'expiresAt'])
    assert.equal(dataOf(await admin.get(`/credentials/${made.id}`)).label, 'ok')
  })

  test(`${dialect}: unknown ids and types are 404, bad ids 400, other methods 405`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const admin = adminClient(app)
    for (const res of [await admin.get('/entries/424242'), await admin.patch('/entries/424242', { title: 'x' }), await admin.del('/entries/424242')]) {
      assert.equal(res.statusCode, 404, res.body)
      assert.equal(res.json().error.code, 'NOT_FOUND')
      assert.match(res.json().error.message, /424242/)
    }
    for (const res of [await admin.post('/widgets', { a: 1 }), await admin.get('/widgets/1'), await admin.del('/widgets/1')]) {
      assert.equal(res.statusCode, 404, res.body)
      assert.equal(res.json().error.code, 'NOT_FOUND')
    }
    for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999']) assertInvalid(await admin.get(`/entries/${id}`), ['id'])

    const put = await app.app.inject({ method: 'PUT', url: '/gatehouse/admin/v1/entries/1', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    assert.equal(put.statusCode, 405)
    assert.equal(put.json().error.code, 'METHOD_NOT_ALLOWED')
    assert.deepEqual(String(put.headers.allow).split(', ').sort(), ['DELETE', 'GET', 'HEAD', 'PATCH'])
    assert.equal(await countRows(app.database.db, 'change_log'), 0)
  })

  test(`${dialect}: non-JSON bodies are 415 and bodies over 1 MiB are 413, nothing written`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const admin = adminClient(app)
    const tag = JSON.stringify({ group: 'materials', title: 'Wool', slug: 'wool' })
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await admin.post('/tags', tag, { 'content-type': type })
      assert.equal(res.statusCode, 415, `${type}: ${res.body}`)
      assert.equal(res.json().error.code, 'UNSUPPORTED_MEDIA_TYPE')
    }
    // application/json with parameters is fine.
    assert.equal((await admin.post('/tags', tag, { 'content-type': 'application/json; charset=utf-8' })).statusCode, 201)

    const big = JSON.stringify({ group: 'materials', title: 'Big', slug: 'big', padding: 'x'.repeat(1024 * 1024) })
    const tooLarge = await admin.post('/tags', big)
    assert.equal(tooLarge.statusCode, 413)
    assert.equal(tooLarge.json().error.code, 'PAYLOAD_TOO_LARGE')
    const hugeGlobal = await admin.post('/global-sets', { handle: 'huge', name: 'Huge', fields: { blob: 'y'.repeat(1024 * 1024 + 10) } })
    assert.equal(hugeGlobal.statusCode, 413)
    assert.equal(await countRows(app.database.db, 'tags'), 1)
    assert.equal(await countRows(app.database.db, 'global_sets'), 0)
    assert.equal(await countRows(app.database.db, 'change_log'), 1)
  })
}
