// One URL, two revisions, two serving processes: the SDK's v2 client on 2026-07-28
// (stateless: no initialize, no session) and its v1 client on 2025-11-25 (initialize and a
// session in the database) against the same pair of instances, each request landing on
// either. Tool lists follow scopes, results equal the HTTP answers, server/discover names the
// revisions, record templates are listed, protocol errors carry one prefix, and a client
// name that would display as something else is refused.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { testDialects } from '../helpers/test-app.js'
import { connect, structured } from './helpers/mcp-client.js'
import { connectModern } from './helpers/mcp-modern-client.js'
import { modernRequest, twoProcesses } from './helpers/two-processes.js'

const AGENT = ['control:approvals:request', 'control:approvals:read', 'control:actions:simulate', 'control:actions:execute']

for (const dialect of await testDialects()) {
  test(`${dialect}: v2 client on 2026-07-28 and v1 client on 2025-11-25, two processes: same tools per scope set, same answers as HTTP`, async (t) => {
    const p = await twoProcesses(dialect)
    t.after(() => p.close())
    const scopeSets: [string[], string[]][] = [
      [['products:read', 'auth:read'], ['get_products', 'list_products', 'whoami']],
      [['changes:read', 'entries:read', 'syncstate:read', 'syncstate:write'], ['get_entries', 'list_changes', 'list_entries', 'sync_checkpoint', 'sync_lag']],
      [['variants:read', ...AGENT], ['execute_action', 'get_approval', 'get_variants', 'list_variants', 'request_approval', 'simulate_action']],
    ]
    for (const [scopes, expected] of scopeSets) {
      const token = await p.a.issueToken(scopes)
      // The modern client talks to the second process only; the session of the v1 client was
      // opened on the first and continues on the second.
      const modern = await connectModern(p.b, token, { baseUrl: p.urls[1] })
      const legacy = await connect(p.a, token)
      const moved = await connect(p.b, token, { sessionId: legacy.transport.sessionId })
      assert.deepEqual(await modern.toolNames(), expected, `2026-07-28, ${scopes.join(' ')}`)
      assert.deepEqual(await legacy.toolNames(), expected, `2025-11-25, ${scopes.join(' ')}`)
      assert.deepEqual(await moved.toolNames(), expected, '2025-11-25 session continued on the other process')
      await Promise.all([modern.client.close(), legacy.client.close(), moved.client.close()])
    }

    // The 2026-07-28 client opened no session: the only rows are the three v1 sessions.
    assert.equal((await p.a.database.db.selectFrom('mcp_sessions').select('id_digest').execute()).length, 3)

    const token = await p.a.issueToken(['products:read', 'entries:read', 'changes:read'])
    const modern = await connectModern(p.a, token)
    const legacy = await connect(p.b, token)
    for (const [tool, args, url] of [
      ['list_products', { limit: 2 }, '/products?limit=2'],
      ['get_products', { id: p.ids.products }, `/products/show?id=${p.ids.products}`],
      ['list_entries', { limit: 3 }, '/entries?limit=3'],
      ['list_changes', { limit: 5 }, '/changes?limit=5'],
    ] as const) {
      const http = (await p.b.get(`${BASE_PATH}${url}`, token)).json()
      for (const [who, c] of [['2026-07-28', modern], ['2025-11-25', legacy]] as const) {
        const s = structured(await c.call(tool, args as Record<string, unknown>))
        assert.deepEqual(s.data, http.data, `${who} ${tool} data = GET ${url}`)
        assert.deepEqual(s.pagination, http.pagination, `${who} ${tool} pagination`)
      }
    }
    await Promise.all([modern.client.close(), legacy.client.close()])
  })
}

test('server/discover names both revisions; a 2026-07-28 answer has no session id and the server identifies itself', async (t) => {
  const p = await twoProcesses('sqlite')
  t.after(() => p.close())
  const token = await p.a.issueToken(['products:read'])
  const discover = await modernRequest(p.urls[0], token, 'server/discover')
  assert.equal(discover.status, 200)
  assert.ok(discover.body.result.supportedVersions.includes('2026-07-28'), JSON.stringify(discover.body))
  assert.equal(discover.body.result.serverInfo?.name ?? discover.body.result._meta?.['io.modelcontextprotocol/serverInfo']?.name, 'gatehouse')
  assert.equal(discover.headers.get('mcp-session-id'), null)
  const list = await modernRequest(p.urls[1], token, 'tools/list')
  assert.deepEqual(list.body.result.tools.map((x: { name: string }) => x.name), ['list_products', 'get_products'])
  assert.equal(list.headers.get('mcp-session-id'), null)
  assert.equal(list.headers.get('cache-control'), 'no-store')
  assert.equal(list.body.result.resultType, 'complete')
})

test('an unknown tool is one protocol error with one prefix, on both revisions', async (t) => {
  const p = await twoProcesses('sqlite')
  t.after(() => p.close())
  const token = await p.a.issueToken(['products:read'])
  const modern = await connectModern(p.a, token)
  const legacy = await connect(p.a, token)
  for (const c of [modern, legacy]) {
    await assert.rejects(c.call('drop_tables', {}), (err: Error & { code?: number }) => {
      assert.equal(err.code, -32602)
      assert.ok((err.message.match(/MCP error/g)?.length ?? 0) <= 1, err.message)
      assert.match(err.message, /Unknown tool: drop_tables$/)
      return true
    })
  }
  const raw = await modernRequest(p.urls[0], token, 'tools/call', { name: 'drop_tables', arguments: {} })
  assert.deepEqual(raw.body.error && { code: raw.body.error.code, message: raw.body.error.message }, { code: -32602, message: 'Unknown tool: drop_tables' })
  await Promise.all([modern.client.close(), legacy.client.close()])
})

test('resources/templates/list: a template per family the caller can read; a record resource reads as get_<family>', async (t) => {
  const p = await twoProcesses('sqlite')
  t.after(() => p.close())
  const token = await p.a.issueToken(['products:read', 'variants:read', 'openapi:read'])
  for (const c of [await connectModern(p.a, token), await connect(p.b, token)]) {
    const { resourceTemplates } = await c.client.listResourceTemplates()
    assert.deepEqual(resourceTemplates.map((x) => x.uriTemplate), ['gatehouse://records/products/{id}', 'gatehouse://records/variants/{id}'])
    const read = await c.client.readResource({ uri: `gatehouse://records/products/${p.ids.products}` })
    const content = read.contents[0] as { text: string; mimeType: string }
    assert.equal(content.mimeType, 'application/json')
    assert.deepEqual(JSON.parse(content.text), (await p.a.get(`${BASE_PATH}/products/show?id=${p.ids.products}`, token)).json().data)
    await assert.rejects(c.client.readResource({ uri: `gatehouse://records/orders/${p.ids.orders}` }), /Missing required scope: orders:read/)
    await c.client.close()
  }
})

test('a client name with a bidirectional override or a control character is refused, on both revisions; over HTTP, source is the surface', async (t) => {
  const p = await twoProcesses('sqlite')
  t.after(() => p.close())
  const token = await p.a.issueToken(['variants:read', ...AGENT])
  const forged = 'admin\u202Egnp.exe'
  // The v2 client's first request (server/discover) is refused, so it cannot connect at all.
  await assert.rejects(connectModern(p.a, token, { name: forged }))
  for (const name of [forged, 'agent\u0007']) {
    const raw = await modernRequest(p.urls[0], token, 'tools/list', {}, { clientInfo: { name, version: '1' } })
    assert.equal(raw.status, 400)
    assert.equal(raw.body.error?.code, -32602)
    assert.match(raw.body.error?.message ?? '', /^Invalid params: _meta\["io.modelcontextprotocol\/clientInfo"\]\.name must not contain control characters or bidirectional/)
  }
  await assert.rejects(connect(p.a, token, { name: forged }), /clientInfo.name must not contain control characters/)

  // An HTTP caller may say what it is, but the recorded source is the surface; claiming mcp changes nothing.
  const claimed = await p.a.post(`${BASE_PATH}/control/approvals/request`, {
    actionType: 'variant.setPrice', payload: { variantId: p.ids.variants, price: 30 }, metadata: { source: 'mcp', agentId: 'claude', traceId: 't-1' },
  }, token)
  assert.equal(claimed.statusCode, 200)
  assert.deepEqual([claimed.json().data.metadata.source, claimed.json().data.metadata.declaredSource], ['api', 'mcp'])
  const bidi = await p.a.post(`${BASE_PATH}/control/approvals/request`, {
    actionType: 'variant.setPrice', payload: { variantId: p.ids.variants, price: 31 }, metadata: { source: 'x', agentId: forged, traceId: 't-2' },
  }, token)
  assert.equal(bidi.statusCode, 400)
  assert.deepEqual(bidi.json().error.details.map((d: { param: string }) => d.param), ['metadata.agentId'])
  // Through MCP the surface sets mcp, and the name is recorded as declared.
  const modern = await connectModern(p.a, token, { name: 'pricing-agent', version: '3.1' })
  const approval = structured(await modern.call('request_approval', { actionType: 'variant.setPrice', payload: { variantId: p.ids.variants, price: 32 } })).data
  assert.deepEqual([approval.metadata.source, approval.metadata.agentId, approval.metadata.agentVersion, approval.metadata.declared], ['mcp', 'pricing-agent', '3.1', ['agentId', 'agentVersion']])
  assert.deepEqual(approval.requester.type, 'credential')
  await modern.client.close()
})
