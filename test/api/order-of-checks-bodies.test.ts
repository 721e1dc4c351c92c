// The order of checks (DESIGN §4: authentication, then the route, then the scope, then the
// input) holds for requests with a body too: a body no route takes (an unknown path, a method
// the path does not have) is not parsed, so bad or too deeply nested JSON there answers 401
// without a token, 404 or 405 with one, not a 400 about the body.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'

test('bad JSON sent to no route answers 401, 404 or 405 as the route checks say; to a route, 400', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_ADMIN_TOKEN: 'admin-token-for-body-order-0123456789' } })
  t.after(() => app.close())
  const token = await app.issueToken(['products:read', 'syncstate:write', 'webhooks:dlq:replay'])
  const send = async (method: 'POST' | 'PUT' | 'DELETE', url: string, payload: string, bearer?: string) => {
    const res = await app.app.inject({ method, url, payload, headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) } })
    return { status: res.statusCode, code: res.json().error?.code as string | undefined, allow: res.headers.allow }
  }
  const deep = '['.repeat(100) + ']'.repeat(100)
  for (const body of ['{bad', deep]) {
    assert.deepEqual(await send('POST', '/gatehouse/v1/nope', body), { status: 401, code: 'UNAUTHORIZED', allow: undefined })
    assert.deepEqual(await send('POST', '/gatehouse/v1/products', body), { status: 401, code: 'UNAUTHORIZED', allow: undefined })
    assert.deepEqual(await send('POST', '/gatehouse/v1/nope', body, token), { status: 404, code: 'NOT_FOUND', allow: undefined })
    assert.deepEqual(await send('DELETE', '/gatehouse/v1/products', body, token), { status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'GET, HEAD' })
    assert.deepEqual(await send('PUT', '/gatehouse/v1/webhooks/dlq/replay', body, token), { status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'POST' })
    assert.equal((await send('POST', '/gatehouse/admin/v1/nope', body)).status, 401)
  }
  // A route that takes the body still reads it: after authentication and scope, a 400.
  assert.deepEqual(await send('POST', '/gatehouse/v1/sync-state/checkpoint', '{bad', token), { status: 400, code: 'INVALID_REQUEST', allow: undefined })
  assert.equal((await send('POST', '/gatehouse/v1/sync-state/checkpoint', '{bad')).status, 401)
})

// The body limit and the media type are input checks too: a body sent to no route is not read
// at all, over a real connection as through inject, so the answer is the route checks' (a body
// over the limit was a 413).
test('a body over the limit or of another media type sent to no route answers 401, 404 or 405; to a route that reads it, 413 or 415', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['products:read', 'syncstate:write'])
  const base = await app.app.listen({ host: '127.0.0.1', port: 0 })
  const big = JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) })
  const send = async (method: string, path: string, bearer?: string, type = 'application/json') => {
    const res = await fetch(`${base}${path}`, { method, body: type === 'application/json' ? big : '<a/>', headers: { 'content-type': type, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) } })
    const body = (await res.json()) as { error: { code: string } }
    // A body no route reads ends the connection: Node would otherwise read all of it to keep it.
    if (!path.includes('checkpoint') && !path.includes('/admin/')) assert.equal(res.headers.get('connection'), 'close', `${method} ${path}`)
    return { status: res.status, code: body.error.code, allow: res.headers.get('allow') ?? undefined }
  }
  assert.deepEqual(await send('POST', '/gatehouse/v1/nope'), { status: 401, code: 'UNAUTHORIZED', allow: undefined })
  assert.deepEqual(await send('POST', '/gatehouse/v1/nope', token), { status: 404, code: 'NOT_FOUND', allow: undefined })
  assert.deepEqual(await send('POST', '/gatehouse/v1/products'), { status: 401, code: 'UNAUTHORIZED', allow: undefined })
  assert.deepEqual(await send('DELETE', '/gatehouse/v1/products', token), { status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'GET, HEAD' })
  assert.deepEqual(await send('POST', '/no-such-page'), { status: 404, code: 'NOT_FOUND', allow: undefined })
  assert.equal((await send('POST', '/gatehouse/admin/v1/nope')).status, 401)
  // A route that takes a body still refuses one over the limit, after authentication.
  assert.deepEqual(await send('POST', '/gatehouse/v1/sync-state/checkpoint'), { status: 401, code: 'UNAUTHORIZED', allow: undefined })
  assert.deepEqual(await send('POST', '/gatehouse/v1/sync-state/checkpoint', token), { status: 413, code: 'PAYLOAD_TOO_LARGE', allow: undefined })
  assert.deepEqual(await send('POST', '/gatehouse/v1/nope', undefined, 'text/xml'), { status: 401, code: 'UNAUTHORIZED', allow: undefined })
  assert.deepEqual(await send('POST', '/gatehouse/v1/nope', token, 'text/xml'), { status: 404, code: 'NOT_FOUND', allow: undefined })
  assert.deepEqual(await send('DELETE', '/gatehouse/v1/products', token, 'text/xml'), { status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'GET, HEAD' })
  assert.deepEqual(await send('POST', '/gatehouse/v1/sync-state/checkpoint', token, 'text/xml'), { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', allow: undefined })
})
