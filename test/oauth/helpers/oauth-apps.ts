// Two serving processes of one site (one database, one BASE_URL, each its own port and
// connection pool) with sign-in for agents on, an admin who can log in to the panel, and the
// admin API's token, as an operator behind a load balancer would run them.
import { createAdmin } from '../../../src/auth/admin-accounts.js'
import { openDatabase, type DialectName } from '../../../src/store/database.js'
import { buildTestApp, testDatabase, type TestApp, type TestDatabase } from '../../helpers/test-app.js'
import { freePort } from '../../helpers/free-port.js'
import { ADMIN_PASSWORD, ADMIN_USER } from '../../panel/helpers/panel-client.js'

export const ADMIN_TOKEN = 'oauth-test-admin-token-0123456789abcdef'
export { ADMIN_PASSWORD, ADMIN_USER }

export interface Site {
  /** The public address (BASE_URL): process A listens there. */
  readonly base: string
  readonly a: TestApp
  readonly b: TestApp
  /** Process B's own address. */
  readonly baseB: string
  close(): Promise<void>
}

/** A second pool on the same database (another process's view of it). */
function sameDatabase(db: TestDatabase): TestDatabase {
  const other = openDatabase(db.url, { schema: db.schema })
  return { ...other, url: db.url, schema: db.schema, destroy: () => other.close() }
}

export async function oauthSite(dialect: DialectName, env: Record<string, string> = {}, opts: { second?: boolean } = {}): Promise<Site> {
  const [portA, portB] = [await freePort(), await freePort()]
  const base = `http://127.0.0.1:${portA}`
  const all = { PLUGIN_GATEHOUSE_BASE_URL: base, PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN, ...env }
  const database = await testDatabase(dialect)
  const a = await buildTestApp({ dialect, env: all, database })
  await createAdmin(a.services.database.db, ADMIN_USER, ADMIN_PASSWORD)
  await a.app.listen({ host: '127.0.0.1', port: portA })
  const secondDb = opts.second === false ? undefined : sameDatabase(database)
  const b = secondDb ? await buildTestApp({ dialect, env: all, database: secondDb }) : a
  if (secondDb) await b.app.listen({ host: '127.0.0.1', port: portB })
  return {
    base, a, b, baseB: secondDb ? `http://127.0.0.1:${portB}` : base,
    async close() {
      if (secondDb) { await b.close(); await secondDb.destroy() }
      await a.close()
      await database.destroy()
    },
  }
}

/** An MCP `initialize` with a bearer token, as a host sends its first request. */
export function mcpInitialize(origin: string, token: string): Promise<Response> {
  return fetch(`${origin}/gatehouse/mcp`, {
    method: 'POST',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }),
  })
}

/** A form POST to the token endpoint (refresh, code exchange). */
export function tokenRequest(base: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${base}/gatehouse/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() })
}
