// A trailing slash names the same route, on every route: the machine API's (and their root
// aliases), the admin API's, the panel's. A method the path does not serve is still a 405
// listing those it does, and an unknown path a 404.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { buildTestApp } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'

const FLAGS = { PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true', PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true', PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true', PLUGIN_GATEHOUSE_ADMIN_TOKEN: 'admin-token-for-slash-test-0123456789' }

test('every GET route answers the same with a trailing slash', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: FLAGS })
  t.after(() => app.close())
  await seedSmallCatalog(app.services.store)
  const gets = app.routes.filter((r) => r.method === 'GET' && !r.path.includes(':'))
  const token = await app.issueToken([...new Set(gets.map((r) => r.scope))])
  assert.ok(gets.length > 30, `${gets.length} GET routes`)
  for (const r of gets) {
    const query = r.key.endsWith('.show') ? '?id=1' : ''
    const plain = await app.get(`${BASE_PATH}${r.path}${query}`, token)
    const slash = await app.get(`${BASE_PATH}${r.path}/${query}`, token)
    assert.equal(slash.statusCode, plain.statusCode, `${r.path}/ answers ${slash.statusCode}, ${r.path} ${plain.statusCode}: ${slash.body.slice(0, 200)}`)
    assert.notEqual(slash.statusCode, 405, r.path)
    if (r.list) assert.deepEqual(JSON.parse(slash.body).data, JSON.parse(plain.body).data, r.path)
    if (r.rootAlias) assert.equal((await app.get(`${r.path}/`, token)).statusCode, plain.statusCode, `root alias ${r.path}/`)
  }
  // The admin API and the panel too.
  const admin = await app.get('/gatehouse/admin/v1/products/', undefined, { authorization: `Bearer ${FLAGS.PLUGIN_GATEHOUSE_ADMIN_TOKEN}` })
  assert.equal(admin.statusCode, 200)
  assert.equal(admin.json().data.length, 2)
  assert.equal((await app.get('/gatehouse/cp/login/')).statusCode, 200)
})

test('with a trailing slash, another method is still a 405 with Allow, and an unknown path a 404', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['products:read'])
  const post = await app.post(`${BASE_PATH}/products/`, {}, token)
  assert.equal(post.statusCode, 405)
  assert.equal(post.headers.allow, 'GET, HEAD')
  assert.equal((await app.get(`${BASE_PATH}/nothing/`, token)).statusCode, 404)
  assert.equal((await app.get(`${BASE_PATH}/products//`, token)).statusCode, 404)
})
