// Two `gatehouse serve` processes (real OS processes, each its own port, pool, SDK handler and
// caches) on one database, a SQLite file or a PostgreSQL schema, as behind a load balancer
// that sends each request wherever it likes:
// - a 2025-11-25 session (the v1 SDK client) opened on one process, its requests alternating
//   between both, answers as the HTTP API does;
// - the approval round trip of a 2026-07-28 client (the v2 SDK client): the first call lands on
//   one process, the operator decides through the admin API of the other, the client's retry
//   lands on the other process and executes exactly once; the same key, back on the first,
//   answers the stored execution, and the state the retry used is refused there;
// - a subscription on one process sees a write committed through the other.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { buildTestApp, testDatabase, testDialects } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { freePort } from '../helpers/free-port.js'
import { untilValue } from '../helpers/until.js'
import { processDatabaseUrl, startServeProcess, type ServeProcess } from '../helpers/serve-process.js'
import { structured, type AnyToolResult } from './helpers/mcp-client.js'
import { MODERN } from './helpers/mcp-modern-client.js'
import { modernRequest } from './helpers/two-processes.js'

const ADMIN = 'admin-token-for-serving-processes'
const AGENT = ['control:approvals:request', 'control:approvals:read', 'control:actions:simulate', 'control:actions:execute',
  'variants:read', 'entries:read', 'products:read', 'changes:read']

/** One request as the load balancer forwarded it: which process, which method, with a request state or not. */
interface Routed { readonly to: string; readonly method: string; readonly tool?: string; readonly state?: string }

/**
 * A fetch that sends each request of a client to the process `pick` chooses, recording where
 * each JSON-RPC request went: the load balancer in front of the two processes.
 */
function balancer(bases: readonly string[], pick: (n: number, method: string) => number, routed: Routed[]): typeof fetch {
  let n = 0
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) as { method?: string; params?: { name?: string; requestState?: string } } : {}
    const method = body.method ?? (init?.method ?? 'GET')
    const to = bases[pick(n++, method)]
    routed.push({ to, method, tool: body.params?.name, state: body.params?.requestState })
    const target = new URL(url.pathname + url.search, to)
    return fetch(target, init)
  }
}

async function http(base: string, path: string, token: string, init: RequestInit = {}) {
  const res = await fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } })
  return { status: res.status, json: await res.json() as { data: unknown; error?: unknown } }
}

for (const dialect of await testDialects()) {
  test(`${dialect}: two serving processes: a 2025-11-25 session on either, the approval retry on the other, a subscription seeing the other's write`, { timeout: 180_000 }, async (t) => {
    const database = await testDatabase(dialect)
    // This process only prepares the database (catalogue, a credential) and counts rows.
    const setup = await buildTestApp({ dialect, database, env: { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' } })
    t.after(async () => { await setup.close(); await database.destroy() })
    const { ids } = await seedSmallCatalog(setup.services.store)
    const token = await setup.issueToken(AGENT)

    const portA = await freePort()
    const env = {
      PLUGIN_GATEHOUSE_DATABASE_URL: processDatabaseUrl(database), PLUGIN_GATEHOUSE_BASE_URL: `http://127.0.0.1:${portA}`,
      PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true', PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN,
    }
    const processes: ServeProcess[] = []
    t.after(async () => { for (const p of processes) await p.stop() })
    processes.push(await startServeProcess(env, portA))
    processes.push(await startServeProcess(env))
    const [a, b] = processes
    assert.notEqual(a.pid, b.pid)
    const bases = [a.base, b.base]
    const policy = await http(b.base, '/gatehouse/admin/v1/control/policies/upsert', ADMIN, { method: 'POST', body: JSON.stringify({ handle: 'prices', displayName: 'Prices', actionPattern: 'variant.setPrice', requiredApprovals: 1 }) })
    assert.equal(policy.status, 200, JSON.stringify(policy.json))

    // 1. A 2025-11-25 session: initialize on A, then every request to the next process in turn.
    const legacyRoutes: Routed[] = []
    const legacy = new LegacyClient({ name: 'legacy-agent', version: '1.0.0' })
    await legacy.connect(new LegacyTransport(new URL(`${a.base}/gatehouse/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: balancer(bases, (n) => n % 2, legacyRoutes),
    }))
    const tools = (await legacy.listTools()).tools.map((x) => x.name)
    assert.ok(tools.includes('list_entries') && tools.includes('execute_action'))
    for (let i = 0; i < 3; i++) {
      const page = structured(await legacy.callTool({ name: 'list_entries', arguments: { limit: 1 } }) as AnyToolResult)
      const { ok: _ok, requestId: _requestId, ...over } = (await http(bases[i % 2], '/gatehouse/v1/entries?limit=1', token)).json as Record<string, unknown>
      assert.deepEqual(page, over, 'the same answer as the HTTP API')
      assert.equal(structured(await legacy.callTool({ name: 'get_variants', arguments: { id: ids.variants } }) as AnyToolResult).data.id, ids.variants)
    }
    const sessionRequests = legacyRoutes.filter((r) => !['initialize', 'GET', 'DELETE'].includes(r.method))
    assert.ok(sessionRequests.some((r) => r.to === a.base) && sessionRequests.some((r) => r.to === b.base), `the session's requests landed on both processes: ${JSON.stringify(legacyRoutes)}`)
    assert.equal(legacyRoutes[0].method, 'initialize')
    await legacy.close()

    // 2. A subscription on B, opened before the write.
    const seen: { uri: string; position?: number }[] = []
    const listener = new Client({ name: 'listener', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } })
    await listener.connect(new StreamableHTTPClientTransport(new URL(`${b.base}/gatehouse/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
    listener.setNotificationHandler('notifications/resources/updated', (n) => { seen.push({ uri: n.params.uri, position: (n.params._meta as { position?: number } | undefined)?.position }) })
    const sub = await listener.listen({ resourceSubscriptions: [`gatehouse://records/variants/${ids.variants}`] })

    // 3. The approval round trip: the first call to A, everything after it to B.
    const changesBefore = await variantChanges()
    const modernRoutes: Routed[] = []
    let decidedOn: string | undefined
    const agent = new Client({ name: 'pricing-agent', version: '2.0.0' }, { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: MODERN } } })
    agent.setRequestHandler('elicitation/create', async (request) => {
      const id = decodeURIComponent(String((request.params as { url: string }).url).split('/').pop() as string)
      // The operator decides through the admin API of the process the retry will go to.
      decidedOn = b.base
      const decided = await http(b.base, `/gatehouse/admin/v1/control/approvals/${id}/decide`, ADMIN, { method: 'POST', body: JSON.stringify({ decision: 'approve', reason: 'fine' }) })
      assert.equal(decided.status, 200, JSON.stringify(decided.json))
      return { action: 'accept' }
    })
    let firstCall = true
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${a.base}/gatehouse/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
      fetch: balancer(bases, (_n, method) => {
        if (method !== 'tools/call') return 0
        const to = firstCall ? 0 : 1
        firstCall = false
        return to
      }, modernRoutes),
    }))
    const action = { actionType: 'variant.setPrice', payload: { variantId: ids.variants, price: 33 }, idempotencyKey: 'two-processes-33' }
    const run = structured(await agent.callTool({ name: 'execute_action', arguments: action }) as AnyToolResult)
    assert.equal(run.data.status, 'succeeded', JSON.stringify(run))
    assert.deepEqual(run.meta, { replayed: false })
    const calls = modernRoutes.filter((r) => r.method === 'tools/call')
    assert.deepEqual(calls.map((r) => [r.to, typeof r.state]), [[a.base, 'undefined'], [b.base, 'string']], 'the first call on A, the retry with its request state on B')
    assert.equal(decidedOn, b.base)
    assert.equal(await variantChanges(), changesBefore + 1, 'executed exactly once')
    const shown = await http(a.base, `/gatehouse/v1/variants/show?id=${ids.variants}`, token)
    assert.equal((shown.json.data as { price: number }).price, 33, 'A reads what B wrote')

    // The same key on A (the same client: its name is part of what the key is bound to): the stored execution, nothing runs again.
    const replay = await modernRequest(a.base, token, 'tools/call', { name: 'execute_action', arguments: action }, { clientInfo: { name: 'pricing-agent', version: '2.0.0' } })
    assert.deepEqual(replay.body.result?.structuredContent.data, run.data, JSON.stringify(replay.body))
    assert.deepEqual(replay.body.result?.structuredContent.meta, { replayed: true })
    assert.equal(await variantChanges(), changesBefore + 1)
    // The state B used, presented to A: refused, saying what to do.
    const reused = await modernRequest(a.base, token, 'tools/call', { name: 'execute_action', arguments: action, requestState: calls[1].state, inputResponses: { approval: { action: 'accept' } } },
      { clientInfo: { name: 'pricing-agent', version: '2.0.0' } })
    assert.deepEqual(reused.body.error && [reused.body.error.code, reused.body.error.message], [-32602,
      'Invalid or expired requestState: it was already used; call execute_action again without requestState and with the same idempotencyKey to read the execution'])
    assert.equal(await variantChanges(), changesBefore + 1)

    // 4. B's subscription saw the write B made... and, next, one made through A.
    await untilValue(() => (seen.length >= 1 ? seen : undefined), 'the notification of the execution', 15_000)
    const patched = await http(a.base, `/gatehouse/admin/v1/variants/${ids.variants}`, ADMIN, { method: 'PATCH', body: JSON.stringify({ price: 34 }) })
    assert.equal(patched.status, 200, JSON.stringify(patched.json))
    const [note] = await untilValue(() => (seen.length >= 2 ? seen.slice(1) : undefined), 'the notification of A\'s write on B', 15_000)
    const newest = (await http(a.base, '/gatehouse/v1/changes/position', token)).json.data as { position: number }
    const item = (await http(b.base, `/gatehouse/v1/changes?types=variants&after=${(note.position as number) - 1}&limit=1`, token)).json.data as { position: number; resourceId: number; snapshot: { price: number } }[]
    assert.deepEqual([note.uri, item[0].position, item[0].resourceId, item[0].snapshot.price], [`gatehouse://records/variants/${ids.variants}`, note.position, ids.variants, 34])
    assert.ok((note.position as number) <= newest.position)
    await sub.close()
    await Promise.all([listener.close(), agent.close()])

    async function variantChanges(): Promise<number> {
      const row = await setup.database.db.selectFrom('change_log').select((eb) => eb.fn.countAll().as('n'))
        .where('resource_type', '=', 'variants').where('resource_id', '=', ids.variants).executeTakeFirstOrThrow()
      return Number(row.n)
    }
  })
}
