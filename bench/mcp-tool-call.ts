// `npx tsx bench/mcp-tool-call.ts [BEFORE_ROOT]`: requests per second of MCP
// `tools/call list_entries`, before and after the move to the SDK's v2 line, in one run.
// BEFORE_ROOT is a checkout of the earlier code (default /work/main: the v1 SDK, a session
// looked up in the database on every call; `-` leaves it out and compares this tree's two
// revisions only); this tree is measured on 2026-07-28 (stateless) and on 2025-11-25 (its
// session, as before). Each app runs in this process on its own
// SQLite file with the small test catalogue, rate limit off; autocannon drives it.
import { resolve } from 'node:path'
import autocannon from 'autocannon'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20)
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 3)
const BEFORE = process.argv[2] === '-' ? undefined : resolve(process.argv[2] ?? '/work/main')
const AFTER = resolve(import.meta.dirname, '..')
const ENV = { PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '0' }
const CALL = { name: 'list_entries', arguments: { limit: 20 } }

interface Started { url: string; token: string; close(): Promise<void> }

async function start(root: string): Promise<Started> {
  const helpers = await import(`${root}/test/helpers/test-app.ts`)
  const fixtures = await import(`${root}/test/helpers/fixtures.ts`)
  const app = await helpers.buildTestApp({ dialect: 'sqlite', env: ENV })
  await fixtures.seedSmallCatalog(app.services.store)
  const token = await app.issueToken(['entries:read'])
  const url = await app.app.listen({ port: 0, host: '127.0.0.1' })
  return { url, token, close: () => app.close() }
}

async function legacySession(s: Started): Promise<Record<string, string>> {
  const headers = { authorization: `Bearer ${s.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const res = await fetch(`${s.url}/gatehouse/mcp`, {
    method: 'POST', headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  })
  if (res.status !== 200) throw new Error(`initialize answered ${res.status}: ${await res.text()}`)
  return { ...headers, 'mcp-session-id': res.headers.get('mcp-session-id') as string, 'mcp-protocol-version': '2025-11-25' }
}

async function measure(label: string, s: Started, headers: Record<string, string>, body: unknown): Promise<number> {
  const probe = await fetch(`${s.url}/gatehouse/mcp`, { method: 'POST', headers, body: JSON.stringify(body) })
  const text = await probe.text()
  if (probe.status !== 200 || !text.includes('structuredContent')) throw new Error(`${label}: ${probe.status} ${text.slice(0, 300)}`)
  const request = { url: `${s.url}/gatehouse/mcp`, method: 'POST' as const, headers, body: JSON.stringify(body), connections: CONNECTIONS }
  // Unmeasured first: the first requests of a path compile it (JIT, schemas), which would
  // count against whichever revision is measured first.
  await autocannon({ ...request, duration: WARMUP })
  const r = await autocannon({ ...request, duration: SECONDS })
  const rps = Math.round(r.requests.average)
  process.stdout.write(`${label.padEnd(52)} ${String(rps).padStart(6)} req/s  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  non-2xx ${r.non2xx}\n`)
  return rps
}

if (BEFORE) {
  const before = await start(BEFORE)
  await measure('before: v1 SDK, 2025-11-25 session (DB lookup)', before, await legacySession(before), { jsonrpc: '2.0', id: 2, method: 'tools/call', params: CALL })
  await before.close()
}

const after = await start(AFTER)
await measure('after: v2 SDK, 2026-07-28 stateless', after, {
  authorization: `Bearer ${after.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'list_entries',
}, {
  jsonrpc: '2.0', id: 2, method: 'tools/call',
  params: { ...CALL, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } },
})
await measure('after: v2 SDK, 2025-11-25 session (DB lookup)', after, await legacySession(after), { jsonrpc: '2.0', id: 2, method: 'tools/call', params: CALL })
await after.close()
