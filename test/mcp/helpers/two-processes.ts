// Two serving instances on one database, as two `gatehouse serve` processes behind a load
// balancer: each has its own pool, its own SDK handler and (PostgreSQL) its own LISTEN
// connection; a request may land on either. The catalogue is seeded through the first.
import { buildTestApp, testDatabase, type TestApp } from '../../helpers/test-app.js'
import { seedSmallCatalog } from '../../helpers/fixtures.js'
import type { DialectName } from '../../../src/store/database.js'
import { listening } from './mcp-client.js'

export const ADMIN = 'admin-token-for-mcp-tests'

export interface TwoProcesses {
  readonly a: TestApp
  readonly b: TestApp
  readonly ids: Readonly<Record<string, number>>
  readonly urls: readonly [string, string]
  /** A request to the admin API of instance `app` (an operator's action). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  admin(app: TestApp, method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, body?: unknown): Promise<{ statusCode: number; json(): any }>
  close(): Promise<void>
}

export async function twoProcesses(dialect: DialectName, env: Record<string, string> = {}): Promise<TwoProcesses> {
  const database = await testDatabase(dialect)
  const settings = { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true', PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN, ...env }
  const a = await buildTestApp({ dialect, database, env: settings })
  const b = await buildTestApp({ dialect, database, env: settings })
  const { ids } = await seedSmallCatalog(a.services.store)
  const urls = [await listening(a), await listening(b)] as const
  return {
    a, b, ids, urls,
    admin: (app, method, url, body) => app.app.inject({
      method, url: `/gatehouse/admin/v1${url}`,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    }),
    async close() {
      await a.close()
      await b.close()
      await database.destroy()
    },
  }
}

/** One raw JSON-RPC request as a 2026-07-28 client sends it (envelope in `_meta`, standard headers). */
export async function modernRequest(baseUrl: string, token: string, method: string, params: Record<string, unknown> = {}, opts: { capabilities?: Record<string, unknown>; clientInfo?: unknown } = {}) {
  const body = {
    jsonrpc: '2.0', id: Math.floor(Math.random() * 1e9), method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': opts.clientInfo ?? { name: 'raw-agent', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': opts.capabilities ?? { elicitation: { url: {} } },
      },
    },
  }
  const res = await fetch(`${baseUrl}/gatehouse/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28', 'mcp-method': method,
      // The header the transport rules ask for: the tool's name, or the resource's URI.
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : typeof params.uri === 'string' ? { 'mcp-name': params.uri } : {}),
    },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as { result?: any; error?: { code: number; message: string; data?: any } } }
}
