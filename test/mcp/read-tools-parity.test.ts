// Each read tool answers what the HTTP API answers for the same query and caller: the same
// data, pagination (the same next cursor, which works on both surfaces) and meta, for every
// family, the change feed, whoami and the sync checkpoint tools.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { buildTestApp, testDialects, type TestApp } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { connect, structured, toolErrorOf, type McpConnection } from './helpers/mcp-client.js'

const FLAGS = { PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true', PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true' }

/** The HTTP answer without its requestId: what structuredContent holds. */
async function http(app: TestApp, path: string, query: Record<string, string | number>, token: string) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString()
  const res = await app.get(`${BASE_PATH}${path}${qs ? '?' + qs : ''}`, token)
  assert.equal(res.statusCode, 200, `${path}?${qs}: ${res.body.slice(0, 300)}`)
  const { ok: _ok, requestId: _requestId, ...rest } = res.json()
  return rest
}

async function sameAnswers(app: TestApp, mcp: McpConnection, token: string, tool: string, path: string, args: Record<string, string | number>) {
  const result = await mcp.call(tool, args)
  const got = structured(result)
  assert.deepEqual(got, await http(app, path, args, token), `${tool} ${JSON.stringify(args)} = GET ${path}`)
  return got
}

for (const dialect of await testDialects()) {
  test(`${dialect}: list_ and get_ tools of every family answer as the HTTP routes do, page by page`, async (t) => {
    const app = await buildTestApp({ dialect, env: FLAGS })
    t.after(() => app.close())
    const { ids } = await seedSmallCatalog(app.services.store)
    const families = app.services.resources.enabled(app.services.settings)
    // Every read scope (sensitive fields, every status): paging, projection, detail.
    const token = await app.issueToken(app.services.scopes.readScopes)
    const mcp = await connect(app, token)
    for (const r of families) {
      const word = r.type.replace(/-/g, '_')
      const first = await sameAnswers(app, mcp, token, `list_${word}`, `/${r.type}`, { limit: 1, ...(r.status ? { status: 'all' } : {}) })
      if (first.pagination.hasMore) {
        const next = await sameAnswers(app, mcp, token, `list_${word}`, `/${r.type}`, { limit: 1, ...(r.status ? { status: 'all' } : {}), cursor: first.pagination.nextCursor })
        assert.notDeepEqual(next.data, first.data, `${r.type}: the cursor moves on`)
      }
      await sameAnswers(app, mcp, token, `list_${word}`, `/${r.type}`, { limit: 5, fields: 'id,updatedAt' })
      const id = first.data[0]?.id as number | undefined
      if (r.selectors && id !== undefined) await sameAnswers(app, mcp, token, `get_${word}`, `/${r.type}/show`, { id })
    }
    assert.equal(structured(await mcp.call('get_orders', { id: ids.orders })).data.email, 'buyer@example.com')
    // Orders: carts only, placed orders only, every order.
    for (const args of [{ isCompleted: 'false' }, { isCompleted: 'true' }, { status: 'all' }] as Record<string, string>[]) await sameAnswers(app, mcp, token, 'list_orders', '/orders', args)
    await mcp.client.close()
    // The plain read scopes: sensitive fields and other statuses left out alike.
    const plainToken = await app.issueToken(families.map((r) => r.scope as string))
    const plain = await connect(app, plainToken)
    for (const r of families) {
      const word = r.type.replace(/-/g, '_')
      const page = await sameAnswers(app, plain, plainToken, `list_${word}`, `/${r.type}`, { limit: 5 })
      const id = page.data[0]?.id as number | undefined
      if (r.selectors && id !== undefined) await sameAnswers(app, plain, plainToken, `get_${word}`, `/${r.type}/show`, { id })
    }
    assert.equal(structured(await plain.call('get_orders', { id: ids.orders })).data.email, undefined, 'without orders:read_sensitive the email is left out')
    await plain.client.close()
  })

  test(`${dialect}: list_changes, whoami, sync_checkpoint and sync_lag answer as their routes do`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    await seedSmallCatalog(app.services.store)
    const token = await app.issueToken(['changes:read', 'products:read', 'variants:read', 'entries:read', 'auth:read', 'syncstate:read', 'syncstate:write'])
    const mcp = await connect(app, token)

    const page = await sameAnswers(app, mcp, token, 'list_changes', '/changes', { limit: 3, types: 'products,variants' })
    assert.equal(page.data.length, 3)
    assert.ok(page.pagination.hasMore)
    const next = await sameAnswers(app, mcp, token, 'list_changes', '/changes', { cursor: page.pagination.nextCursor })
    assert.ok(next.data.every((c: { resourceType: string }) => ['products', 'variants'].includes(c.resourceType)))
    // Without types, the feed covers the types the caller can read, on both surfaces alike.
    const readable = await sameAnswers(app, mcp, token, 'list_changes', '/changes', { limit: 50 })
    assert.ok(readable.data.length > 0)
    assert.ok(readable.data.every((c: { resourceType: string }) => ['products', 'variants', 'entries'].includes(c.resourceType)))
    // A type asked for by name needs its read scope: both surfaces refuse it, naming the scope.
    const denied = await mcp.call('list_changes', { types: 'orders,entries', limit: 10 })
    const refused = toolErrorOf(denied)
    assert.equal(refused.code, 'FORBIDDEN')
    assert.match(refused.message, /orders:read/)
    const httpDenied = await app.get(`${BASE_PATH}/changes?types=orders,entries&limit=10`, token)
    assert.equal(httpDenied.statusCode, 403)
    assert.deepEqual({ code: httpDenied.json().error.code, message: httpDenied.json().error.message }, { code: refused.code, message: refused.message })

    const who = await sameAnswers(app, mcp, token, 'whoami', '/auth/whoami', {})
    assert.match(who.data.credentialId, /^cred_/)

    // A checkpoint written through MCP is what the HTTP lag reports, and sync_lag agrees with it.
    const written = structured(await mcp.call('sync_checkpoint', { resourceType: 'products', cursor: page.pagination.nextCursor, metadata: { worker: 'mcp' } }))
    assert.equal(written.data.integrationKey, who.data.credentialId)
    assert.equal(written.data.cursor, page.pagination.nextCursor)
    const lag = await sameAnswers(app, mcp, token, 'sync_lag', '/sync-state/lag', {})
    assert.deepEqual(lag.data.checkpoints.map((c: { resourceType: string; metadata: unknown }) => [c.resourceType, c.metadata]), [['products', { worker: 'mcp' }]])
    assert.deepEqual(await sameAnswers(app, mcp, token, 'sync_lag', '/sync-state/lag', { resourceType: 'products' }), lag)
    // The same rules as the route: another integration key is refused.
    const foreign = await mcp.call('sync_checkpoint', { resourceType: 'products', integrationKey: 'someone-else' })
    assert.equal(foreign.isError, true)
    assert.match((foreign.content[0] as { text: string }).text, /^FORBIDDEN: integrationKey must be the calling credential's id/)
    await mcp.client.close()
  })
}

test('a list result says in its text how to get the next page', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  await seedSmallCatalog(app.services.store)
  const mcp = await connect(app, await app.issueToken(['products:read']))
  const result = await mcp.call('list_products', { limit: 1 })
  const cursor = structured(result).pagination.nextCursor as string
  assert.equal((result.content[0] as { text: string }).text, `list_products: 1 item; more follow: call list_products again with cursor "${cursor}"`)
  // The second block is the same JSON as structuredContent, for clients that pass the model text only.
  assert.deepEqual(JSON.parse((result.content[1] as { text: string }).text), result.structuredContent)
  const last = await mcp.call('list_products', { limit: 1, cursor })
  assert.equal((last.content[0] as { text: string }).text, 'list_products: 1 item; last page')
  await mcp.client.close()
})
