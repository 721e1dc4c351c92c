// Every machine-API answer carries Cache-Control: no-store, as the admin API's do: answers
// hold personal data (orders, whoami) and must not be kept by a browser or a shared cache,
// errors included.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'

test('every machine-API answer, success or error, root aliases included, is Cache-Control: no-store', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' } })
  t.after(() => app.close())
  await seedSmallCatalog(app.services.store)
  const all = await app.issueToken(['auth:read', 'orders:read', 'orders:read_sensitive', 'capabilities:read', 'openapi:read', 'products:read', 'syncstate:write', 'control:policies:read'])
  const narrow = await app.issueToken(['auth:read'])
  const cases: [string, () => ReturnType<typeof app.get>, number][] = [
    ['whoami', () => app.get('/gatehouse/v1/auth/whoami', all), 200],
    ['orders with personal data', () => app.get('/gatehouse/v1/orders?status=all', all), 200],
    ['order detail', () => app.get('/gatehouse/v1/orders/show?number=' + 'a'.repeat(32), all), 200],
    ['root alias', () => app.get('/capabilities', all), 200],
    ['openapi', () => app.get('/openapi.json', all), 200],
    ['a list served again from the page cache', () => app.get('/gatehouse/v1/products', all), 200],
    ['no token', () => app.get('/gatehouse/v1/orders'), 401],
    ['unknown token', () => app.get('/gatehouse/v1/orders', 'gth_nope'), 401],
    ['missing scope', () => app.get('/gatehouse/v1/orders', narrow), 403],
    ['unknown path', () => app.get('/gatehouse/v1/nothing-here', all), 404],
    ['wrong method', () => app.post('/gatehouse/v1/orders', {}, all), 405],
    ['bad query', () => app.get('/gatehouse/v1/orders?limit=0', all), 400],
    ['bad body', () => app.post('/gatehouse/v1/sync-state/checkpoint', '{', all), 400],
    ['not JSON', () => app.post('/gatehouse/v1/sync-state/checkpoint', 'x', all, { 'content-type': 'text/plain' }), 415],
    ['control route', () => app.get('/gatehouse/v1/control/policies', all), 200],
  ]
  await app.get('/gatehouse/v1/products', all)
  for (const [name, call, status] of cases) {
    const res = await call()
    assert.equal(res.statusCode, status, `${name}: ${res.body}`)
    assert.equal(res.headers['cache-control'], 'no-store', `${name} (${status})`)
  }
})
