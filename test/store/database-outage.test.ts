// A database outage is answered 503 SERVICE_UNAVAILABLE within the documented bounds (connect
// timeout, query timeout, SQLite busy timeout), and service recovers by itself. A connection
// dropped while a query runs never takes the process down: the request answers 503, the pool
// replaces the connection, and the process keeps serving. PostgreSQL is reached through a
// loopback proxy that refuses, black-holes or cuts connections; SQLite is locked by another
// connection.
// npm test: timing (answers must come within connect, query and busy timeouts)
// npm test: waits (mostly waiting, little CPU: runs in the waiting lane beside the other groups)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import SQLite from 'better-sqlite3'
import { pino } from 'pino'
import { sql } from 'kysely'
import { buildApp, type GatehouseApp } from '../../src/compose/app.js'
import { openDatabase } from '../../src/store/database.js'
import { PG_URL, testDatabase, testDialects, testSettings, type TestDatabase } from '../helpers/test-app.js'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js'
import { until } from '../helpers/until.js'

const ADMIN = 'admin-token-for-outage-tests'
const CONNECT_MS = 500
const QUERY_MS = 800

interface Answer { status: number; code?: string; ms: number; retryAfter?: string }

/** An app that opens its store from settings, as `gatehouse serve` does. */
async function servingApp(databaseUrl: string, env: Record<string, string> = {}): Promise<GatehouseApp> {
  const settings = testSettings({
    PLUGIN_GATEHOUSE_DATABASE_URL: databaseUrl, PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN,
    PLUGIN_GATEHOUSE_DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_MS), PLUGIN_GATEHOUSE_DATABASE_QUERY_TIMEOUT_MS: String(QUERY_MS), ...env,
  })
  return buildApp({ settings, logger: pino({ level: 'silent' }), webhookWorker: false })
}

async function call(app: GatehouseApp, method: 'GET' | 'POST', url: string, token?: string, body?: unknown): Promise<Answer> {
  const started = performance.now()
  const res = await app.app.inject({
    method, url, payload: body === undefined ? undefined : JSON.stringify(body),
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
  })
  const ms = Math.round(performance.now() - started)
  const parsed = res.headers['content-type']?.toString().includes('json') ? JSON.parse(res.body) : {}
  return { status: res.statusCode, code: parsed.error?.code ?? (parsed.ok === false ? 'not ok' : undefined), ms, retryAfter: res.headers['retry-after'] as string | undefined }
}

/** The requests an outage must answer: reads, an admin write, readiness and the probes. */
async function sweep(app: GatehouseApp, token: string, n: number): Promise<Record<string, Answer>> {
  return {
    list: await call(app, 'GET', '/gatehouse/v1/tags', token),
    // Driven by a term: PostgreSQL runs it on the connections kept on generic plans.
    filtered: await call(app, 'GET', `/gatehouse/v1/global-sets?filter=${encodeURIComponent(`fields.n:${n}`)}`, token),
    write: await call(app, 'POST', '/gatehouse/admin/v1/tags', ADMIN, { group: 'g', title: `T${n}`, slug: `t-${n}` }),
    health: await call(app, 'GET', '/gatehouse/v1/health', token),
    readiness: await call(app, 'GET', '/gatehouse/v1/readiness', token),
    readyz: await call(app, 'GET', '/readyz'),
  }
}

/**
 * A `t.after` clean-up whose steps all run, in order, even when one fails (a proxy that cannot
 * listen again must not leave the app open); the first failure is thrown after the last step.
 */
function cleanUp(...steps: (() => Promise<unknown> | unknown)[]): () => Promise<void> {
  return async () => {
    const failures: unknown[] = []
    for (const step of steps) {
      try { await step() } catch (err) { failures.push(err) }
    }
    if (failures.length > 0) throw failures[0]
  }
}

/** Catches what would otherwise end the process (an unhandled 'error' event from pg). */
function watchCrashes(t: { after(fn: () => void): void }): unknown[] {
  const crashes: unknown[] = []
  const onCrash = (err: unknown) => { crashes.push(err) }
  process.on('uncaughtException', onCrash)
  process.on('unhandledRejection', onCrash)
  t.after(() => { process.off('uncaughtException', onCrash); process.off('unhandledRejection', onCrash) })
  return crashes
}

if ((await testDialects()).includes('postgres')) {
  /** A test schema, a proxy in front of PostgreSQL, and a URL of the server through the proxy. */
  const behindProxy = async (): Promise<{ base: TestDatabase; proxy: TcpProxy; url: URL }> => {
    const base = await testDatabase('postgres')
    const target = new URL(PG_URL)
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    const url = new URL(PG_URL)
    url.port = String(proxy.port)
    return { base, proxy, url }
  }

  const proxied = async (t: { after(fn: () => Promise<void> | void): void }) => {
    const { base, proxy, url } = await behindProxy()
    url.searchParams.set('options', `-c search_path=${base.schema}`)
    const app = await servingApp(url.toString())
    t.after(cleanUp(() => proxy.setMode('forward'), () => app.close(), () => proxy.close(), () => base.destroy()))
    const { token } = await app.services.credentials.create({ label: 'outage', scopes: ['tags:read', 'globalsets:read', 'health:read', 'readiness:read'] })
    return { app, proxy, token }
  }

  test('postgres: refused, then black-holed: every route answers 503 within the connect timeout, then recovers without a restart', async (t) => {
    const crashes = watchCrashes(t)
    const { app, proxy, token } = await proxied(t)
    const up = await sweep(app, token, 0)
    assert.deepEqual(Object.values(up).map((a) => a.status), [200, 200, 201, 200, 200, 200], JSON.stringify(up))

    for (const mode of ['refuse', 'blackhole'] as const) {
      await proxy.setMode(mode)
      // Past the two-second credential cache, so authentication needs the database too (a
      // failed lookup caches nothing, so once is enough).
      if (mode === 'refuse') await new Promise((r) => setTimeout(r, 2100))
      const down = await sweep(app, token, 1)
      for (const [name, a] of Object.entries(down)) {
        const bound = CONNECT_MS + 1000
        assert.ok(a.ms <= bound, `${mode}: ${name} answered after ${a.ms} ms (bound ${bound})`)
        if (name === 'readyz') assert.deepEqual([a.status, a.code], [503, 'not ok'], `${mode}: ${name}`)
        else {
          assert.deepEqual([a.status, a.code], [503, 'SERVICE_UNAVAILABLE'], `${mode}: ${name} ${JSON.stringify(a)}`)
          assert.equal(a.retryAfter, '5')
        }
      }
      // More requests at once than the pool has connections: those waiting for a connection
      // give up after the connect timeout too, and answer 503 as well (they were 500s).
      const many = await Promise.all(Array.from({ length: 25 }, () => call(app, 'GET', '/gatehouse/v1/tags', token)))
      assert.deepEqual([...new Set(many.map((a) => `${a.status} ${a.code}`))], ['503 SERVICE_UNAVAILABLE'], `${mode}: ${JSON.stringify(many)}`)
    }
    assert.ok(proxy.accepted > 0)

    await proxy.setMode('forward')
    const back = await sweep(app, token, 2)
    assert.deepEqual(Object.values(back).map((a) => a.status), [200, 200, 201, 200, 200, 200], JSON.stringify(back))
    assert.equal((await app.app.inject({ url: '/gatehouse/v1/readiness', headers: { authorization: `Bearer ${token}` } })).json().data.checks[0].status, 'ok')
    assert.deepEqual(crashes, [])
  })

  test('postgres: a read on an established connection that goes silent gives up after the query timeout and a second, and its connection is replaced', async (t) => {
    const { base, proxy, url } = await behindProxy()
    // One pooled connection: the silent read runs on the connection the first read opened.
    const database = openDatabase(url.toString(), { poolSize: 1, queryTimeoutMs: QUERY_MS, connectTimeoutMs: CONNECT_MS })
    t.after(cleanUp(() => proxy.setMode('forward'), () => database.close(), () => proxy.close(), () => base.destroy()))
    assert.deepEqual(await database.read('SELECT 1', []), [[1]])
    await proxy.setMode('blackhole')
    const readAt = performance.now()
    await assert.rejects(database.read('SELECT 2', []), /Connection terminated/)
    const waited = performance.now() - readAt
    assert.ok(waited >= QUERY_MS + 1000 - 50 && waited <= QUERY_MS + 1000 + 400, `gave up after ${Math.round(waited)} ms`)
    await proxy.setMode('forward')
    assert.deepEqual(await database.read('SELECT 3', []), [[3]], 'a new connection serves the next read')
  })

  test('postgres: closing the database while a query waits on a silent connection ends once that query is given up, not never', async (t) => {
    const { base, proxy, url } = await behindProxy()
    const database = openDatabase(url.toString(), { poolSize: 1, queryTimeoutMs: QUERY_MS, connectTimeoutMs: CONNECT_MS })
    // The proxy goes first: it cuts whatever the database still holds, should close hang.
    t.after(cleanUp(() => proxy.close(), () => base.destroy()))
    assert.deepEqual(await database.read('SELECT 1', []), [[1]])
    await proxy.setMode('blackhole')
    const silent = database.read('SELECT 2', []).then(() => 'answered', (err: Error) => `failed: ${err.message}`)
    await new Promise((r) => setTimeout(r, 100))
    const closing = performance.now()
    const bound = QUERY_MS + 1000 + 1500
    const closed = await Promise.race([database.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('still closing'), bound))])
    assert.equal(closed, 'closed', `close had not ended after ${bound} ms`)
    assert.ok(performance.now() - closing <= bound)
    const outcome = await Promise.race([silent, new Promise((r) => setTimeout(() => r('still waiting'), 500))])
    assert.match(String(outcome), /^failed: Connection terminated/)
  })

  test('postgres: a change listener whose server goes silent after accepting it gives up within the connect timeout, and stops without waiting for ever', async (t) => {
    const { base, proxy, url } = await behindProxy()
    const database = openDatabase(url.toString(), { queryTimeoutMs: QUERY_MS, connectTimeoutMs: CONNECT_MS })
    t.after(cleanUp(() => proxy.close(), () => database.close(), () => base.destroy()))
    // The connection is made and answers; the listener's first statement never comes back.
    proxy.silence('current_schema()')
    const states: boolean[] = []
    const within = <T>(promise: Promise<T>, ms: number) => Promise.race([promise, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), ms))])
    const startedAt = performance.now()
    const stop = await within(database.listen!(() => {}, (listening) => states.push(listening)), CONNECT_MS + 1500)
    assert.notEqual(stop, 'still waiting', 'the first attempt never ended')
    assert.ok(performance.now() - startedAt >= CONNECT_MS - 50, 'the attempt waited for its statement')
    // The retry a second later goes silent the same way; stopped while it waits, stop waits
    // for it to end, and leaves no connection open.
    await until(() => proxy.accepted >= 2, 'the listener to try again', 3000, 10)
    assert.equal(await within((stop as () => Promise<void>)(), CONNECT_MS + 1500), undefined)
    await until(() => proxy.connected === 0, 'no connection left open after stop', 100, 10)
    assert.deepEqual(states, [], 'it never listened')
  })

  /** The status of the first 200 to GET /tags within `ms`, or the last status when none was. */
  async function servedWithin(app: Parameters<typeof call>[0], token: string, ms: number): Promise<number> {
    const until = Date.now() + ms
    for (;;) {
      const { status } = await call(app, 'GET', '/gatehouse/v1/tags', token)
      if (status === 200 || Date.now() > until) return status
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  test('postgres: a connection that stops answering or is cut mid-query answers 503 within the query timeout; the process keeps serving and the pool replaces it', async (t) => {
    const crashes = watchCrashes(t)
    const { app, proxy, token } = await proxied(t)
    assert.equal((await call(app, 'GET', '/gatehouse/v1/tags', token)).status, 200)

    // Established connections go silent: the statement never returns.
    await proxy.setMode('blackhole')
    const silent = await call(app, 'POST', '/gatehouse/admin/v1/tags', ADMIN, { group: 'g', title: 'Silent', slug: 'silent' })
    assert.deepEqual([silent.status, silent.code], [503, 'SERVICE_UNAVAILABLE'])
    assert.ok(silent.ms <= QUERY_MS + 1000 + 700, `answered after ${silent.ms} ms (query timeout ${QUERY_MS} ms + 1 s)`)
    // The hot read path (prepared page statements) has the same bound: a page never seen
    // before (no page cache), and the store's read itself.
    const silentPage = await call(app, 'GET', '/gatehouse/v1/tags?limit=7', token)
    assert.deepEqual([silentPage.status, silentPage.code], [503, 'SERVICE_UNAVAILABLE'], JSON.stringify(silentPage))
    assert.ok(silentPage.ms <= QUERY_MS + 1000 + 700, `page answered after ${silentPage.ms} ms`)
    await proxy.setMode('forward')
    // The silent connection was discarded, not handed out again.
    const after = await call(app, 'GET', '/gatehouse/v1/tags', token)
    assert.equal(after.status, 200, JSON.stringify(after))
    assert.ok(after.ms < 1000, `served in ${after.ms} ms`)

    // A long query in flight when the connection is cut (no process crash, an error to its caller).
    const sleeping = sql`SELECT pg_sleep(2)`.execute(app.services.database.db)
    const request = call(app, 'GET', '/gatehouse/v1/tags', token)
    await new Promise((r) => setTimeout(r, 300))
    const cutAt = Date.now()
    proxy.cut()
    await assert.rejects(sleeping, /Connection terminated|terminated unexpectedly|ECONNRESET/)
    assert.ok(Date.now() - cutAt < 1000)
    assert.equal((await request).status, 200, 'a request finished before the cut is unaffected')

    // A request whose query is on the wire when the connection drops.
    await proxy.setMode('blackhole')
    const inFlight = call(app, 'POST', '/gatehouse/admin/v1/tags', ADMIN, { group: 'g', title: 'Cut', slug: 'cut' })
    await new Promise((r) => setTimeout(r, 200))
    proxy.cut()
    const cut = await inFlight
    assert.deepEqual([cut.status, cut.code], [503, 'SERVICE_UNAVAILABLE'], JSON.stringify(cut))
    assert.ok(cut.ms < 2000, `answered after ${cut.ms} ms`)

    // Idle pooled connections cut too: the pool's clients report errors; nothing crashes.
    await proxy.setMode('forward')
    // The cut above also closed idle pooled connections: one of them may still be handed out
    // (and fail its request with a 503) before the pool has seen it close; within a second of
    // the network's return every request is served (a clean-clone CI run met that 503).
    assert.equal(await servedWithin(app, token, 1000), 200)
    proxy.cut()
    await new Promise((r) => setTimeout(r, 200))
    const served = await Promise.all([1, 2, 3].map(() => call(app, 'GET', '/gatehouse/v1/tags', token)))
    assert.deepEqual(served.map((a) => a.status), [200, 200, 200])
    assert.equal((await call(app, 'POST', '/gatehouse/admin/v1/tags', ADMIN, { group: 'g', title: 'Again', slug: 'again' })).status, 201)
    assert.deepEqual(crashes, [], 'no uncaught error reached the process')
  })
}

test('sqlite: a write locked out by another process answers 503 after the busy timeout; reads go on; it recovers when the lock is released', async (t) => {
  const base = await testDatabase('sqlite')
  const app = await servingApp(base.url, { PLUGIN_GATEHOUSE_SQLITE_BUSY_TIMEOUT_MS: '300' })
  t.after(async () => { await app.close(); await base.destroy() })
  const { token } = await app.services.credentials.create({ label: 'outage', scopes: ['tags:read', 'health:read', 'readiness:read'] })
  assert.equal((await call(app, 'POST', '/gatehouse/admin/v1/tags', ADMIN, { group: 'g', title: 'A', slug: 'a' })).status, 201)

  // Another process holds the write lock.
  const other = new SQLite(base.url.slice('sqlite:'.length))
  other.exec('BEGIN EXCLUSIVE')
  try {
    const locked = await call(app, 'POST', '/gatehouse/admin/v1/tags', ADMIN, { group: 'g', title: 'B', slug: 'b' })
    assert.deepEqual([locked.status, locked.code], [503, 'SERVICE_UNAVAILABLE'], JSON.stringify(locked))
    assert.ok(locked.ms >= 250 && locked.ms < 300 + 1000, `answered after ${locked.ms} ms (busy timeout 300 ms)`)
    const read = await call(app, 'GET', '/gatehouse/v1/tags', token)
    assert.equal(read.status, 200, 'readers are not blocked (WAL)')
  } finally {
    other.exec('ROLLBACK')
    other.close()
  }
  assert.equal((await call(app, 'POST', '/gatehouse/admin/v1/tags', ADMIN, { group: 'g', title: 'B', slug: 'b' })).status, 201)
})
