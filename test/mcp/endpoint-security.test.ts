// /gatehouse/mcp admits exactly the callers the machine API admits: the same bearer token,
// expiry, allowlist, rate limit (with its headers) and metrics; a tool the caller's scopes do
// not cover is refused naming the scope; arguments are typed, never coerced, and every bad
// one is named; calls are counted by tool and outcome.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { connect, listening, MCP, structured, toolErrorOf } from './helpers/mcp-client.js'
import { clearOfRateWindowEnd } from '../helpers/rate-window.js'

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }

function post(base: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(base + MCP, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  })
}

for (const dialect of await testDialects()) {
  test(`${dialect}: no token, an unknown, expired or paused one: 401 JSON; an address outside the allowlist: 403`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    const base = await listening(app)
    const creds = app.services.credentials
    const expired = await creds.create({ label: 'old', scopes: ['products:read'], expiresAt: new Date(Date.now() - 1000).toISOString() })
    const paused = await creds.create({ label: 'paused', scopes: ['products:read'] })
    await creds.setStatus(paused.credential.id, 'paused')
    const cases: [string, Record<string, string>, string][] = [
      ['none', {}, 'Missing bearer token'],
      ['unknown', { authorization: 'Bearer gth_not_a_real_token' }, 'Unknown token'],
      ['expired', { authorization: `Bearer ${expired.token}` }, 'Credential expired'],
      ['paused', { authorization: `Bearer ${paused.token}` }, 'Credential paused'],
    ]
    for (const [what, headers, message] of cases) {
      const res = await post(base, INITIALIZE, headers)
      assert.equal(res.status, 401, what)
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/)
      // Names the resource's OAuth metadata (RFC 9728); a token that did not pass is invalid_token (RFC 6750).
      const invalidToken = what === 'none' ? '' : ', error="invalid_token"'
      assert.equal(res.headers.get('www-authenticate'), `Bearer realm="gatehouse"${invalidToken}, resource_metadata="${app.services.settings.baseUrl}/.well-known/oauth-protected-resource/gatehouse/mcp"`)
      const body = await res.json() as { error: { code: string; message: string }; requestId: string }
      assert.equal(body.error.code, 'UNAUTHORIZED', what)
      assert.equal(body.error.message, message, what)
      assert.equal(body.requestId, res.headers.get('x-request-id'))
      assert.equal(res.headers.get('mcp-session-id'), null, `${what}: no session is opened`)
      assert.equal(res.headers.get('cache-control'), 'no-store')
    }
    const rows = await app.database.db.selectFrom('mcp_sessions').select('credential_id').execute()
    assert.deepEqual(rows, [])
    // The SDK client fails to connect the same way.
    await assert.rejects(connect(app, 'gth_not_a_real_token'), (err: Error & { code?: number }) => err.code === 401 && /"code":"UNAUTHORIZED"/.test(err.message))

    const office = await creds.create({ label: 'office', scopes: ['products:read'], ipAllowlist: ['10.1.0.0/16'] })
    const outside = await post(base, INITIALIZE, { authorization: `Bearer ${office.token}` })
    assert.equal(outside.status, 403)
    assert.equal((await outside.json() as { error: { code: string } }).error.code, 'FORBIDDEN')
  })
}

test('rate limit: every MCP request spends the credential\'s budget, with the X-RateLimit headers, then 429', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '5' } })
  t.after(() => app.close())
  const base = await listening(app)
  const token = await app.issueToken(['products:read'])
  const auth = { authorization: `Bearer ${token}` }
  await clearOfRateWindowEnd(20_000)
  const init = await post(base, INITIALIZE, auth)
  assert.equal(init.status, 200)
  assert.equal(init.headers.get('x-ratelimit-limit'), '5')
  assert.equal(init.headers.get('x-ratelimit-remaining'), '4')
  assert.match(init.headers.get('x-request-id') ?? '', /^req_/)
  assert.equal(init.headers.get('cache-control'), 'no-store')
  const session = { ...auth, 'mcp-session-id': init.headers.get('mcp-session-id') as string, 'mcp-protocol-version': '2025-06-18' }
  // A batch cannot buy several calls with one request's budget: refused, and it still counts.
  const batch = await post(base, [{ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { jsonrpc: '2.0', id: 3, method: 'tools/list' }], session)
  assert.equal(batch.status, 400)
  assert.equal(batch.headers.get('x-ratelimit-remaining'), '3')
  assert.deepEqual(await batch.json(), { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: send one JSON-RPC message per request; batches are not accepted' }, id: null })
  const remaining: (string | null)[] = []
  for (let i = 4; i <= 6; i++) {
    const res = await post(base, { jsonrpc: '2.0', id: i, method: 'tools/list' }, session)
    assert.equal(res.status, 200)
    remaining.push(res.headers.get('x-ratelimit-remaining'))
  }
  assert.deepEqual(remaining, ['2', '1', '0'])
  const limited = await post(base, { jsonrpc: '2.0', id: 7, method: 'tools/list' }, session)
  assert.equal(limited.status, 429)
  assert.ok(Number(limited.headers.get('retry-after')) >= 1)
  assert.equal((await limited.json() as { error: { code: string } }).error.code, 'RATE_LIMIT_EXCEEDED')
})

for (const dialect of await testDialects()) {
  test(`${dialect}: a tool outside the caller's scopes is refused naming the scope; arguments are typed and each bad one named`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    await seedSmallCatalog(app.services.store)
    const mcp = await connect(app, await app.issueToken(['products:read', 'capabilities:read']))

    const denied = toolErrorOf(await mcp.call('list_orders', { limit: 1 }))
    assert.deepEqual(denied, { code: 'FORBIDDEN', message: 'Missing required scope: orders:read' })
    assert.equal(toolErrorOf(await mcp.call('sync_checkpoint', { resourceType: 'products' })).message, 'Missing required scope: syncstate:write')
    // Widening scopes behave as on HTTP: other statuses of entries need their own scope.
    const entries = await connect(app, await app.issueToken(['entries:read']))
    assert.deepEqual(toolErrorOf(await entries.call('list_entries', { status: 'all' })), { code: 'FORBIDDEN', message: 'Missing required scope: entries:read_all_statuses' })

    // No coercion: "2" is not an integer, "true" where a string enum is expected is a string.
    // Each problem is worded as the HTTP API words it.
    const bad = toolErrorOf(await mcp.call('list_products', { limit: '2', status: 'gone', lowStock: true, nope: 1, updatedSince: 'yesterday' }))
    assert.equal(bad.code, 'INVALID_REQUEST')
    assert.deepEqual(Object.fromEntries((bad.details ?? []).map((d) => [d.param, d.problem])), {
      nope: 'unknown parameter',
      limit: 'must be integer',
      status: 'must be one of: live, pending, disabled, expired, all',
      lowStock: 'must be one of: true, false, 1, 0, yes, no, on, off',
      updatedSince: 'must match format "date-time"',
    })
    const httpBad = await app.get(`${BASE_PATH}/products?limit=500&nope=1&updatedSince=yesterday&status=gone`, await app.issueToken(['products:read']))
    const overLimit = toolErrorOf(await mcp.call('list_products', { limit: 500, nope: 1, updatedSince: 'yesterday', status: 'gone' }))
    assert.deepEqual(overLimit.details, httpBad.json().error.details, 'the same words as GET /products')
    assert.equal(overLimit.message, httpBad.json().error.message)
    assert.equal(toolErrorOf(await mcp.call('list_products', { limit: 0 })).details?.[0].param, 'limit')
    // Declared order statuses: an unknown one is refused with the valid ones, as GET /orders refuses it.
    const ordersToken = await app.issueToken(['orders:read'])
    const orders = await connect(app, ordersToken)
    const badStatus = toolErrorOf(await orders.call('list_orders', { status: 'shipping' }))
    assert.deepEqual(badStatus.details, [{ param: 'status', problem: 'must be one of: cart, pending, processing, shipped, completed, cancelled, refunded, all' }])
    const httpStatus = await app.get(`${BASE_PATH}/orders?status=shipping`, ordersToken)
    assert.equal(httpStatus.statusCode, 400)
    assert.deepEqual(httpStatus.json().error.details, badStatus.details)
    await orders.client.close()
    assert.deepEqual(toolErrorOf(await mcp.call('get_products', {})).details?.map((d) => d.param), ['id', 'slug'])
    assert.equal(toolErrorOf(await mcp.call('get_products', { id: 999999 })).code, 'NOT_FOUND')
    assert.equal(toolErrorOf(await mcp.call('list_products', { filter: 'title:\u0000' })).details?.[0].param, 'filter')
    // Typed values that the HTTP API would also accept work.
    assert.equal(structured(await mcp.call('list_products', { limit: 2, lowStock: 'true' })).data.length >= 0, true)
    await mcp.client.close()
    await entries.client.close()
  })
}

test('/metrics counts MCP calls by tool and outcome (JSON and Prometheus) and MCP requests under route mcp', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const mcp = await connect(app, await app.issueToken(['products:read']))
  await mcp.call('list_products', {})
  await mcp.call('list_products', { limit: 2 })
  await mcp.call('list_products', { limit: 'x' })
  await mcp.call('list_orders', {})
  await assert.rejects(mcp.client.callTool({ name: 'drop_tables', arguments: {} }), /Unknown tool/)
  const token = await app.issueToken(['metrics:read'])
  const json = (await app.get(`${BASE_PATH}/metrics`, token)).json().data
  assert.deepEqual(json.mcpToolCalls, [
    { tool: 'list_orders', outcome: 'FORBIDDEN', count: 1 },
    { tool: 'list_products', outcome: 'INVALID_REQUEST', count: 1 },
    { tool: 'list_products', outcome: 'ok', count: 2 },
    { tool: 'unknown', outcome: 'NOT_FOUND', count: 1 },
  ])
  assert.equal(json.scopeDenials, 1, 'a refused tool is a scope denial')
  const posts = json.requests.filter((r: { route: string; method: string }) => r.route === 'mcp' && r.method === 'POST')
  assert.ok(posts.reduce((n: number, r: { count: number }) => n + r.count, 0) >= 7, 'each MCP request is counted under route mcp')

  const text = (await app.get(`${BASE_PATH}/metrics`, token, { accept: 'text/plain' })).body
  const family = parsePrometheusTextFormat(text).find((f) => f.name === 'gatehouse_mcp_tool_calls_total')
  assert.equal(family?.type, 'COUNTER')
  const samples = Object.fromEntries((family?.metrics ?? []).map((m) => [`${m.labels?.tool} ${m.labels?.outcome}`, (m as { value: string }).value]))
  assert.deepEqual(samples, { 'list_orders FORBIDDEN': '1', 'list_products INVALID_REQUEST': '1', 'list_products ok': '2', 'unknown NOT_FOUND': '1' })
  await mcp.client.close()
})

test('browser calls from another origin are refused (DNS rebinding)', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_BASE_URL: 'https://cms.example.test' } })
  t.after(() => app.close())
  const base = await listening(app)
  const auth = { authorization: `Bearer ${await app.issueToken(['products:read'])}` }
  const evil = await post(base, INITIALIZE, { ...auth, origin: 'http://evil.example' })
  assert.equal(evil.status, 403)
  assert.equal((await evil.json() as { error: { message: string } }).error.message, 'Origin http://evil.example is not allowed; calls from a browser must come from https://cms.example.test')
  assert.equal((await post(base, INITIALIZE, { ...auth, origin: 'https://cms.example.test' })).status, 200)
})
