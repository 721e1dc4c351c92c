// GET /capabilities and GET /openapi.json at the site root behave exactly like their base-path
// routes: same authentication (401), scope (403), method (405) and body.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { buildTestApp } from '../helpers/test-app.js'

const ALIASES = [
  { path: '/capabilities', scope: 'capabilities:read' },
  { path: '/openapi.json', scope: 'openapi:read' },
]

test('root aliases: 401 without a token, 403 naming the scope, 405 for other methods, same body with the scope', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  for (const { path, scope } of ALIASES) {
    for (const url of [path, BASE_PATH + path]) {
      const anonymous = await app.get(url)
      assert.equal(anonymous.statusCode, 401, url)
      assert.equal(anonymous.json().error.code, 'UNAUTHORIZED')
      assert.match(String(anonymous.headers['www-authenticate']), /^Bearer\b/)

      const bad = await app.get(url, 'gth_' + 'A'.repeat(43))
      assert.equal(bad.statusCode, 401, url)

      const withoutScope = await app.get(url, await app.issueToken(['products:read']))
      assert.equal(withoutScope.statusCode, 403, url)
      assert.equal(withoutScope.json().error.message, `Missing required scope: ${scope}`)

      const post = await app.post(url, {}, await app.issueToken([scope]))
      assert.equal(post.statusCode, 405, url)
      assert.equal(post.headers.allow, 'GET, HEAD')
      assert.equal((await app.post(url, {})).statusCode, 401, `${url}: authentication comes before the method check`)
    }
    const token = await app.issueToken([scope])
    const root = await app.get(path, token)
    const base = await app.get(BASE_PATH + path, token)
    assert.equal(root.statusCode, 200)
    assert.equal(root.headers['content-type'], base.headers['content-type'])
    const { requestId: _r, ...rootBody } = root.json()
    const { requestId: _b, ...baseBody } = base.json()
    assert.deepEqual(rootBody, baseBody)
    if (path === '/capabilities') assert.equal(root.json().requestId, root.headers['x-request-id'])
  }
})

test('only the two aliases exist at the root: other machine paths there are plain 404s', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['schema:read', 'products:read'])
  for (const url of ['/schema', '/products', '/auth/whoami']) {
    const res = await app.get(url, token)
    assert.equal(res.statusCode, 404, url)
    assert.equal(res.json().error.code, 'NOT_FOUND')
  }
})
