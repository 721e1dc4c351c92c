// Sensitive fields only with the family's :read_sensitive scope; entries other than live
// only with entries:read_all_statuses; status defaults per family; feature flags.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'

const FLAGS = { PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true', PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true' }

for (const dialect of await testDialects()) {
  test(`${dialect}: sensitive order, user and address fields need :read_sensitive`, async () => {
    const app = await buildTestApp({ dialect, env: FLAGS })
    try {
      await seedSmallCatalog(app.services.store)
      const plain = await app.issueToken(['orders:read', 'users:read', 'addresses:read', 'changes:read'])
      const sensitive = await app.issueToken(['orders:read', 'orders:read_sensitive', 'users:read', 'users:read_sensitive', 'addresses:read', 'addresses:read_sensitive'])
      const cases = [
        { url: '/gatehouse/v1/orders', keys: ['email', 'billingAddress', 'shippingAddress', 'customer'], secret: 'buyer@example.com' },
        { url: '/gatehouse/v1/users', keys: ['email'], secret: 'ada@example.com' },
        { url: '/gatehouse/v1/addresses', keys: ['fullName', 'addressLine1', 'addressLine2', 'addressLine3', 'organization', 'phone'], secret: '12 Secret Street' },
      ]
      for (const c of cases) {
        const without = await app.get(c.url, plain)
        assert.equal(without.statusCode, 200)
        assert.ok(without.json().data.length > 0)
        for (const item of without.json().data) for (const k of c.keys) assert.ok(!(k in item), `${c.url}: ${k} leaked`)
        assert.ok(!without.body.includes(c.secret), `${c.url}: secret value in body`)
        const detail = await app.get(`${c.url}/show?id=${without.json().data[0].id}`, plain)
        assert.ok(!detail.body.includes(c.secret), `${c.url}/show leaked`)
        const withScope = await app.get(c.url, sensitive)
        for (const k of c.keys) assert.ok(k in withScope.json().data[0], `${c.url}: ${k} missing with scope`)
        assert.ok(withScope.body.includes(c.secret))
        // Neither fields nor filter can reach sensitive paths without the scope.
        const field = await app.get(`${c.url}?fields=id,${c.keys[0]}`, plain)
        assert.equal(field.statusCode, 400)
        assert.match(field.json().error.details[0].problem, /requires scope .*:read_sensitive/)
        const filter = await app.get(`${c.url}?filter=${c.keys[0]}:~a`, plain)
        assert.equal(filter.statusCode, 400)
        assert.equal((await app.get(`${c.url}?filter=${c.keys[0]}:~a`, sensitive)).statusCode, 200)
      }
      // The change feed's snapshots are redacted the same way.
      const feed = await app.get('/gatehouse/v1/changes?types=orders', plain)
      assert.equal(feed.statusCode, 200)
      assert.ok(feed.json().data.length > 0)
      assert.ok(!feed.body.includes('buyer@example.com'))
    } finally {
      await app.close()
    }
  })

  test(`${dialect}: entries other than live need entries:read_all_statuses`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      await seedSmallCatalog(app.services.store)
      const live = await app.issueToken(['entries:read'])
      const all = await app.issueToken(['entries:read', 'entries:read_all_statuses'])
      const liveList = (await app.get('/gatehouse/v1/entries', live)).json().data
      assert.deepEqual(liveList.map((e: { slug: string }) => e.slug), ['hello-world'])
      for (const q of ['status=pending', 'status=all']) {
        const res = await app.get(`/gatehouse/v1/entries?${q}`, live)
        assert.equal(res.statusCode, 403)
        assert.equal(res.json().error.message, 'Missing required scope: entries:read_all_statuses')
      }
      assert.equal((await app.get('/gatehouse/v1/entries/show?slug=draft-thoughts', live)).statusCode, 404)
      assert.equal((await app.get('/gatehouse/v1/entries?filter=status:pending', live)).json().data.length, 0)
      const everything = (await app.get('/gatehouse/v1/entries?status=all', all)).json().data
      assert.deepEqual(everything.map((e: { slug: string }) => e.slug).sort(), ['draft-thoughts', 'hello-world'])
      assert.equal((await app.get('/gatehouse/v1/entries/show?slug=draft-thoughts', all)).json().data.status, 'pending')
    } finally {
      await app.close()
    }
  })
}

test('status defaults: live for products, active for users and subscriptions; all removes the filter', async () => {
  const app = await buildTestApp({ dialect: 'sqlite', env: FLAGS })
  try {
    await seedSmallCatalog(app.services.store)
    const token = await app.issueToken(['products:read', 'users:read', 'subscriptions:read', 'variants:read'])
    const store = app.services.store
    const p = await store.create('products', { type: 'mug', title: 'Old mug', slug: 'old-mug', status: 'expired' })
    assert.ok(!(await app.get('/gatehouse/v1/products', token)).json().data.some((x: { id: number }) => x.id === p.id))
    assert.ok((await app.get('/gatehouse/v1/products?status=expired', token)).json().data.some((x: { id: number }) => x.id === p.id))
    assert.deepEqual((await app.get('/gatehouse/v1/users', token)).json().data.map((u: { username: string }) => u.username), ['ada'])
    assert.deepEqual((await app.get('/gatehouse/v1/users?status=all', token)).json().data.map((u: { username: string }) => u.username), ['ada', 'bob'])
    assert.deepEqual((await app.get('/gatehouse/v1/users?group=customers&status=all', token)).json().data.map((u: { username: string }) => u.username), ['bob'])
    const bad = await app.get('/gatehouse/v1/users?status=sleeping', token)
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.json().error.details[0].param, 'status')
  } finally {
    await app.close()
  }
})
