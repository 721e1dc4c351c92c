// tools/list shows a tool only when the caller holds its scope and its flag is on. The read
// tools come from the declarations (one list_/get_ pair per family served), their input
// schemas are the HTTP route's parameters, and the governed tools exist only while
// PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL is on.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { connect, structured, toolErrorOf } from './helpers/mcp-client.js'

const AGENT = ['control:approvals:request', 'control:approvals:read', 'control:actions:simulate', 'control:actions:execute']
const GOVERNED_TOOLS = ['execute_action', 'get_approval', 'request_approval', 'simulate_action']

for (const dialect of await testDialects()) {
  test(`${dialect}: three scope sets see three tool lists`, async (t) => {
    const app = await buildTestApp({ dialect, env: { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' } })
    t.after(() => app.close())
    const catalogue = await connect(app, await app.issueToken(['products:read', 'auth:read']))
    assert.deepEqual(await catalogue.toolNames(), ['get_products', 'list_products', 'whoami'])

    const sync = await connect(app, await app.issueToken(['changes:read', 'entries:read', 'syncstate:read', 'syncstate:write']))
    assert.deepEqual(await sync.toolNames(), ['get_entries', 'list_changes', 'list_entries', 'sync_checkpoint', 'sync_lag'])

    const agent = await connect(app, await app.issueToken(['variants:read', ...AGENT]))
    assert.deepEqual(await agent.toolNames(), ['get_variants', 'list_variants', ...GOVERNED_TOOLS].sort())
    // Each governed tool needs its own scope: without execute, no execute_action.
    const asker = await connect(app, await app.issueToken(['control:approvals:request', 'control:approvals:read']))
    assert.deepEqual(await asker.toolNames(), ['get_approval', 'request_approval'])
    for (const c of [catalogue, sync, agent, asker]) await c.client.close()
  })
}

test('every family served gets list_ and get_ tools named after it, with the route\'s parameters as input schema', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(app.services.scopes.readScopes.concat('openapi:read'))
  const mcp = await connect(app, token)
  const { tools } = await mcp.client.listTools()
  const byName = new Map(tools.map((x) => [x.name, x]))
  const families = app.services.resources.enabled(app.services.settings)
  assert.ok(families.length >= 12)
  const openapi = (await app.get(`${BASE_PATH}/openapi.json`, token)).json()
  for (const r of families) {
    const word = r.type.replace(/-/g, '_')
    const list = byName.get(`list_${word}`)
    assert.ok(list, `list_${word}`)
    // The tool takes exactly the route's query parameters, typed as the contract types them.
    // Query parameters only: every operation also declares the X-Request-Id header (a $ref).
    const params = (openapi.paths[`/${r.type}`].get.parameters as { name: string; in: string; schema: unknown }[]).filter((p) => p.in === 'query')
    assert.deepEqual(Object.keys(list.inputSchema.properties ?? {}).sort(), params.map((p) => p.name).sort(), `${list.name} input = GET /${r.type} parameters`)
    for (const p of params) assert.deepEqual((list.inputSchema.properties as Record<string, unknown>)[p.name], p.schema, `${list.name}.${p.name}`)
    assert.equal((list.inputSchema as { additionalProperties?: boolean }).additionalProperties, false)
    assert.equal(list.annotations?.readOnlyHint, true)
    assert.ok(list.outputSchema, `${list.name} declares its output`)
    assert.equal(byName.has(`get_${word}`), (r.selectors ?? []).length > 0, `get_${word} exactly when the family has selectors`)
    const get = byName.get(`get_${word}`)
    if (get) {
      const showParams = (openapi.paths[`/${r.type}/show`].get.parameters as { name: string; in: string; schema: unknown }[]).filter((p) => p.in === 'query')
      assert.deepEqual(Object.keys(get.inputSchema.properties ?? {}).sort(), showParams.map((p) => p.name).sort(), `${get.name} input = GET /${r.type}/show parameters`)
      for (const p of showParams) assert.deepEqual((get.inputSchema.properties as Record<string, unknown>)[p.name], p.schema, `${get.name}.${p.name}`)
    }
  }
  // Parameters a family's declaration adds reach its tools without MCP code naming them.
  assert.deepEqual(Object.keys(byName.get('get_entries')?.inputSchema.properties ?? {}).sort(), ['fields', 'id', 'section', 'slug'])
  const orders = byName.get('list_orders')?.inputSchema.properties as Record<string, { enum?: string[] }>
  assert.deepEqual(orders.status.enum, ['cart', 'pending', 'processing', 'shipped', 'completed', 'cancelled', 'refunded', 'all'])
  assert.ok(orders.isCompleted, 'list_orders takes isCompleted')
  assert.deepEqual(byName.get('list_products')?.inputSchema.properties?.status, { type: 'string', enum: ['live', 'pending', 'disabled', 'expired', 'all'], description: 'Default live; all removes the status filter' })
  assert.ok(byName.has('list_global_sets') && byName.has('get_content_blocks'), 'hyphens become underscores')
  await mcp.client.close()
})

for (const dialect of await testDialects()) {
  test(`${dialect}: flags off: the tools of switched-off surfaces do not exist, whatever the scopes; on: they appear`, async (t) => {
    const scopes = ['users:read', 'addresses:read', 'changes:read', ...AGENT]
    for (const on of [false, true]) {
      const flag = String(on)
      const app = await buildTestApp({
        dialect,
        env: { PLUGIN_GATEHOUSE_ENABLE_USERS_API: flag, PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: flag, PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: flag },
      })
      t.after(() => app.close())
      const mcp = await connect(app, await app.issueToken(scopes))
      const expected = on ? ['get_addresses', 'get_users', 'list_addresses', 'list_changes', 'list_users', ...GOVERNED_TOOLS].sort() : ['list_changes']
      assert.deepEqual(await mcp.toolNames(), expected, `flags ${flag}`)
      if (!on) {
        // Calling one is calling a tool that does not exist.
        await assert.rejects(mcp.client.callTool({ name: 'execute_action', arguments: {} }), /Unknown tool: execute_action/)
        await assert.rejects(mcp.client.callTool({ name: 'list_users', arguments: {} }), /Unknown tool: list_users/)
        // The change feed does not serve a switched-off family's type either.
        const feed = toolErrorOf(await mcp.call('list_changes', { types: 'users' }))
        assert.equal(feed.code, 'INVALID_REQUEST')
        assert.match(feed.details?.[0].problem ?? '', /^unknown type users; must be one of: /)
      } else {
        assert.equal(structured(await mcp.call('list_changes', { types: 'users' })).pagination.hasMore, false)
      }
      await mcp.client.close()
    }
  })
}
