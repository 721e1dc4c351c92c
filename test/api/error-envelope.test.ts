// The error side of the envelope: request ids, 413, 415, 400 details, 500 without
// internals, 503 when the database is gone.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'

test('X-Request-Id: a valid client id is kept, anything else is replaced; requestId matches', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    const token = await app.issueToken(['auth:read'])
    const kept = await app.get('/gatehouse/v1/auth/whoami', token, { 'x-request-id': 'trace-123:abc.DEF_x' })
    assert.equal(kept.headers['x-request-id'], 'trace-123:abc.DEF_x')
    assert.equal(kept.json().requestId, 'trace-123:abc.DEF_x')
    for (const bad of ['has space', 'x'.repeat(129), '<script>']) {
      const res = await app.get('/gatehouse/v1/auth/whoami', token, { 'x-request-id': bad })
      assert.notEqual(res.headers['x-request-id'], bad)
      assert.match(String(res.headers['x-request-id']), /^req_[0-9a-f]{20}$/)
      assert.equal(res.json().requestId, res.headers['x-request-id'])
    }
    // Ids made by the server are never repeated.
    const made = new Set<string>()
    for (let i = 0; i < 20; i++) made.add(String((await app.get('/gatehouse/v1/auth/whoami', token)).headers['x-request-id']))
    assert.equal(made.size, 20)
    const err = await app.get('/gatehouse/v1/auth/whoami', undefined, { 'x-request-id': 'err-1' })
    assert.equal(err.json().requestId, 'err-1')
    assert.equal('ok' in err.json(), false, 'error bodies carry no ok field')
  } finally {
    await app.close()
  }
})

test('POST bodies: 415 for non-JSON, 413 over 1 MiB, 400 for broken JSON', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    const post = app.routes.find((r) => r.method === 'POST' && !r.flag)
    assert.ok(post, 'a POST machine route exists')
    const token = await app.issueToken([post.scope])
    const url = `/gatehouse/v1${post.path}`
    const text = await app.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, payload: 'hello' })
    assert.equal(text.statusCode, 415)
    assert.equal(text.json().error.code, 'UNSUPPORTED_MEDIA_TYPE')
    const big = await app.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) }) })
    assert.equal(big.statusCode, 413)
    assert.equal(big.json().error.code, 'PAYLOAD_TOO_LARGE')
    const broken = await app.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: '{"a":' })
    assert.equal(broken.statusCode, 400)
    assert.equal(broken.json().error.code, 'INVALID_REQUEST')
    assert.ok(!broken.body.includes('SyntaxError'))
    // Without a token the body is never looked at.
    assert.equal((await app.app.inject({ method: 'POST', url, headers: { 'content-type': 'text/plain' }, payload: 'x' })).statusCode, 401)
  } finally {
    await app.close()
  }
})

test('an unexpected failure is a 500 with a fixed message: no stack, SQL or token', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    app.app.get('/gatehouse/v1-test/boom', async () => {
      throw new Error('SELECT password FROM admins WHERE token = gth_supersecret')
    })
    const res = await app.app.inject({ url: '/gatehouse/v1-test/boom' })
    assert.equal(res.statusCode, 500)
    assert.equal(res.json().error.code, 'INTERNAL_ERROR')
    assert.ok(!res.body.includes('SELECT') && !res.body.includes('gth_supersecret') && !res.body.includes('at '))
  } finally {
    await app.close()
  }
})

test('the database going away is a 503 SERVICE_UNAVAILABLE, and /readyz says so', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    const token = await app.issueToken(['products:read'])
    assert.equal((await app.get('/readyz')).statusCode, 200)
    await app.services.database.close()
    const res = await app.get('/gatehouse/v1/products', token)
    assert.equal(res.statusCode, 503)
    assert.equal(res.json().error.code, 'SERVICE_UNAVAILABLE')
    assert.equal((await app.get('/readyz')).statusCode, 503)
    assert.equal((await app.get('/livez')).statusCode, 200)
  } finally {
    await app.close()
  }
})
