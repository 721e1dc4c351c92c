// The example provider (examples/providers/warehouse-stock.ts), loaded by module path, against
// a stub warehouse service on 127.0.0.1: paging across the service's own pages, fields, filter,
// its parameter, 404, scope; then the service failing, hanging and recovering (503
// PROVIDER_UNAVAILABLE and readiness degraded while it is down, served again once it is back).
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { buildTestApp, testDatabase, type TestApp } from '../helpers/test-app.js'
import { processDatabaseUrl, startServeProcess } from '../helpers/serve-process.js'
import { listAll } from './helpers/provider-app.js'
import { until } from '../helpers/until.js'

const STOCK = `${BASE_PATH}/plugins/warehouse/stock-levels`
const SCOPE = 'plugins:warehouse:stock-levels:read'
const TOKEN = 'stub-token'

const SKUS = Array.from({ length: 13 }, (_, i) => ({
  sku: `SKU-${String(i + 1).padStart(3, '0')}`,
  warehouse: i % 3 === 0 ? 'AMS' : 'BER',
  onHand: (i * 7) % 11,
  reserved: i % 4,
  updatedAt: `2025-02-${String(i + 1).padStart(2, '0')}T10:00:00Z`,
}))

type Mode = 'ok' | 'fail' | 'hang'

/** The warehouse service: pages of at most 4, a bearer token, and a switch to break it. */
async function stubService(t: TestContext) {
  const state = { mode: 'ok' as Mode, stockCalls: 0, healthCalls: 0 }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://stub')
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    if (url.pathname === '/health') state.healthCalls++
    else state.stockCalls++
    if (state.mode === 'hang') return // never answers; the provider's timeout must
    if (state.mode === 'fail') return send(500, { error: 'database on fire' })
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(401, { error: 'who are you' })
    if (url.pathname === '/health') return send(200, { ok: true })
    if (url.pathname === '/stock') {
      const warehouse = url.searchParams.get('warehouse')
      if (warehouse && !['AMS', 'BER'].includes(warehouse)) return send(400, { error: `unknown warehouse ${warehouse}` })
      const after = url.searchParams.get('after') ?? ''
      const matching = SKUS.filter((s) => s.sku > after && (!warehouse || s.warehouse === warehouse))
      const page = matching.slice(0, Math.min(4, Number(url.searchParams.get('limit'))))
      return send(200, { items: page, next: matching.length > page.length ? page[page.length - 1].sku : null })
    }
    const one = SKUS.find((s) => `/stock/${s.sku}` === url.pathname)
    return one ? send(200, one) : send(404, { error: 'no such sku' })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

async function warehouseApp(t: TestContext, serviceUrl: string): Promise<TestApp> {
  // The example reads its own settings from the environment, as a real provider would.
  Object.assign(process.env, { WAREHOUSE_STOCK_URL: serviceUrl, WAREHOUSE_TOKEN: TOKEN, WAREHOUSE_TIMEOUT_MS: '2000' })
  const app = await buildTestApp({
    dialect: 'sqlite', providers: { checkIntervalMs: 50, callTimeoutMs: 5000 },
    env: { PLUGIN_GATEHOUSE_PROVIDERS: './examples/providers/warehouse-stock.ts' },
  })
  t.after(() => app.close())
  return app
}

const expected = (s: (typeof SKUS)[number]) => ({ ...s, available: Math.max(0, s.onHand - s.reserved), updatedAt: new Date(s.updatedAt).toISOString() })

test('the example provider serves the service\'s stock through the machine API', async (t) => {
  const stub = await stubService(t)
  const app = await warehouseApp(t, stub.url)
  const token = await app.issueToken([SCOPE])

  // The service pages by 4: one client page of 5 takes two calls, and every item comes once.
  const all = await listAll(app, token, `${STOCK}?limit=5`)
  assert.deepEqual(all.items, SKUS.map(expected))
  assert.deepEqual(all.pages, [5, 5, 3])

  const ams = await listAll(app, token, `${STOCK}?limit=2&warehouse=AMS&fields=sku,available`)
  assert.deepEqual(ams.items, SKUS.filter((s) => s.warehouse === 'AMS').map((s) => ({ sku: s.sku, available: expected(s).available })))

  const soldOut = await listAll(app, token, `${STOCK}?limit=3&filter=${encodeURIComponent('available:0,warehouse:BER')}`)
  assert.deepEqual(soldOut.items.map((s) => s.sku), SKUS.map(expected).filter((s) => s.available === 0 && s.warehouse === 'BER').map((s) => s.sku))

  const one = await app.get(`${STOCK}/SKU-004`, token)
  assert.deepEqual(one.json().data, expected(SKUS[3]))
  assert.equal((await app.get(`${STOCK}/SKU-999`, token)).statusCode, 404)

  // The service refuses the parameter: a 400 naming it, and the provider stays available.
  const unknown = await app.get(`${STOCK}?warehouse=ZZZ`, token)
  assert.equal(unknown.statusCode, 400)
  assert.deepEqual(unknown.json().error.details, [{ param: 'warehouse', problem: 'unknown warehouse ZZZ' }])
  const malformed = await app.get(`${STOCK}?warehouse=${encodeURIComponent('A B')}`, token)
  assert.equal(malformed.statusCode, 400)
  assert.equal(malformed.json().error.details[0].param, 'warehouse')

  const denied = await app.get(STOCK, await app.issueToken(['plugins:redirects:redirects:read']))
  assert.equal(denied.statusCode, 403)
  assert.equal(denied.json().error.message, `Missing required scope: ${SCOPE}`)

  const schema = (await app.get(`${BASE_PATH}/schema?endpoint=plugins.warehouse.stock-levels.list`, await app.issueToken(['schema:read']))).json().data.endpoints[0]
  assert.deepEqual(Object.keys(schema.query.properties), ['limit', 'cursor', 'fields', 'filter', 'warehouse'])
  assert.deepEqual(Object.keys(schema.response.properties.data.items.properties), ['sku', 'warehouse', 'onHand', 'reserved', 'available', 'updatedAt'])
})

test('the service failing or hanging: 503 PROVIDER_UNAVAILABLE and readiness degraded, until it recovers', async (t) => {
  const stub = await stubService(t)
  const app = await warehouseApp(t, stub.url)
  const token = await app.issueToken([SCOPE, 'readiness:read', 'diagnostics:read'])
  const readiness = async () => (await app.get(`${BASE_PATH}/readiness`, token)).json().data
  const providers = async () => (await readiness()).checks.find((c: { name: string }) => c.name === 'providers')
  assert.equal((await readiness()).verdict, 'ready')
  assert.equal((await app.get(STOCK, token)).statusCode, 200)

  stub.state.mode = 'fail'
  const failed = await app.get(STOCK, token)
  assert.equal(failed.statusCode, 503)
  assert.deepEqual(failed.json().error, { code: 'PROVIDER_UNAVAILABLE', message: 'Provider warehouse is unavailable; retry later' })
  assert.equal(failed.headers['retry-after'], '1')
  const check = await providers()
  assert.equal(check.status, 'warn')
  assert.equal(check.message, 'provider warehouse is unavailable: the warehouse service answered 500')
  assert.equal((await readiness()).verdict, 'degraded')
  const posture = (await app.get(`${BASE_PATH}/diagnostics/bundle`, token)).json().data.posture.providers
  assert.deepEqual(posture.map((p: Record<string, unknown>) => [p.plugin, p.source, p.entry, p.available]), [['warehouse', 'module', './examples/providers/warehouse-stock.ts', false]])

  // While it is down, requests are answered without calling the service for data.
  const calls = stub.state.stockCalls
  for (let i = 0; i < 3; i++) assert.equal((await app.get(`${STOCK}/SKU-001`, token)).statusCode, 503)
  assert.equal(stub.state.stockCalls, calls)

  stub.state.mode = 'ok'
  await until(async () => (await readiness()).verdict === 'ready', 'readiness to recover')
  assert.equal((await app.get(STOCK, token)).statusCode, 200)

  // No answer at all: the provider's own timeout turns it into unavailability.
  stub.state.mode = 'hang'
  const hung = await app.get(`${STOCK}/SKU-002`, token)
  assert.equal(hung.statusCode, 503)
  // Answered by the provider's own timeout (2 s, roomy for a loaded CI machine), not Gatehouse's deadline (5 s).
  assert.equal((await providers()).message, 'provider warehouse is unavailable: the warehouse service did not answer within 2000 ms')
  stub.state.mode = 'ok'
  await until(async () => (await app.get(`${STOCK}/SKU-002`, token)).statusCode === 200, 'the provider to recover')
  assert.equal((await providers()).status, 'ok')
})

test('a provider module that fails to start names itself: the example without its URL', async () => {
  delete process.env.WAREHOUSE_STOCK_URL
  await assert.rejects(buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_PROVIDERS: './examples/providers/warehouse-stock.ts' } }),
    { message: 'Invalid setting PLUGIN_GATEHOUSE_PROVIDERS: provider "warehouse" (module "./examples/providers/warehouse-stock.ts") failed to start: WAREHOUSE_STOCK_URL must be set to the service\'s http(s) address' })
})

test('the served CLI loads the example by its .ts path, as its header says to run it', async (t) => {
  // `npm start` runs built JavaScript, which cannot import a .ts module by itself.
  const stub = await stubService(t)
  const database = await testDatabase('sqlite')
  const setup = await buildTestApp({ dialect: 'sqlite', database })
  t.after(async () => { await setup.close(); await database.destroy() })
  const token = await setup.issueToken([SCOPE])
  const served = await startServeProcess({
    PLUGIN_GATEHOUSE_DATABASE_URL: processDatabaseUrl(database), PLUGIN_GATEHOUSE_PROVIDERS: './examples/providers/warehouse-stock.ts',
    WAREHOUSE_STOCK_URL: stub.url, WAREHOUSE_TOKEN: TOKEN,
  })
  t.after(() => served.stop())
  const res = await fetch(`${served.base}${STOCK}/SKU-003`, { headers: { authorization: `Bearer ${token}` } })
  assert.equal(res.status, 200, served.output())
  assert.deepEqual(((await res.json()) as { data: unknown }).data, expected(SKUS[2]))
})
