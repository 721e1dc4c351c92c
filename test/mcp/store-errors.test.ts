// Store errors reach an agent as the HTTP API maps them, in a form it can act on: inside a
// tool, a tool error SERVICE_UNAVAILABLE naming the wait (retryable, Retry-After's seconds);
// before the tool (authenticating with the database away), a JSON-RPC error in a 200 answer
// with the same code and wait, not an HTTP 503 the client would report as a broken
// transport. Service recovers by itself. Both SDK clients, SQLite and PostgreSQL.
// npm test: timing (retryable errors within the database timeouts)
// npm test: waits (mostly waiting, little CPU: runs in the waiting lane beside the other groups)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import SQLite from 'better-sqlite3'
import { pino } from 'pino'
import { buildApp } from '../../src/compose/app.js'
import { buildTestApp, PG_URL, testDatabase, testDialects, testSettings } from '../helpers/test-app.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import { connect, structured, toolErrorOf } from './helpers/mcp-client.js'
import { connectModern } from './helpers/mcp-modern-client.js'
import { modernRequest } from './helpers/two-processes.js'

const SCOPES = ['syncstate:write', 'syncstate:read', 'tags:read']

test('sqlite: a tool whose write is locked out answers a retryable SERVICE_UNAVAILABLE naming the wait, then works again', async (t) => {
  // The app waits 300 ms for a lock (PLUGIN_GATEHOUSE_SQLITE_BUSY_TIMEOUT_MS, as served): the
  // database handed to it is opened with that wait, not the default 5 s (each locked statement
  // of the tool waited 5 s: about a minute for the two calls).
  const base = await testDatabase('sqlite', { busyTimeoutMs: 300 })
  const app = await buildTestApp({ dialect: 'sqlite', database: base, env: { PLUGIN_GATEHOUSE_SQLITE_BUSY_TIMEOUT_MS: '300' } })
  t.after(async () => { await app.close(); await base.destroy() })
  const token = await app.issueToken(SCOPES)
  const modern = await connectModern(app, token)
  const legacy = await connect(app, token)
  const checkpoint = { resourceType: 'tags' }
  const other = new SQLite(base.url.slice('sqlite:'.length))
  other.exec('BEGIN EXCLUSIVE')
  try {
    for (const c of [modern, legacy]) {
      const err = toolErrorOf(await c.call('sync_checkpoint', checkpoint))
      assert.equal(err.code, 'SERVICE_UNAVAILABLE')
      assert.equal(err.message, 'The database cannot be reached or did not answer in time; retry in 5 seconds')
      assert.deepEqual([err.retryable, err.retryAfterSeconds], [true, 5])
    }
  } finally {
    other.exec('ROLLBACK')
    other.close()
  }
  for (const c of [modern, legacy]) assert.equal(structured(await c.call('sync_checkpoint', checkpoint)).data.resourceType, 'tags')
  await Promise.all([modern.client.close(), legacy.client.close()])
})

test('sqlite: an MCP endpoint whose first request met the database locked out serves once it is back, without a restart', async (t) => {
  // The endpoint makes its per-site request-state key at its first request (a write, on a fresh
  // site): with the write lock held elsewhere that fails. The failure must not stay remembered.
  const base = await testDatabase('sqlite', { busyTimeoutMs: 300 })
  const app = await buildTestApp({ dialect: 'sqlite', database: base, env: { PLUGIN_GATEHOUSE_SQLITE_BUSY_TIMEOUT_MS: '300' } })
  t.after(async () => { await app.close(); await base.destroy() })
  const token = await app.issueToken(SCOPES)
  const address = await app.app.listen({ port: 0, host: '127.0.0.1' })
  const other = new SQLite(base.url.slice('sqlite:'.length))
  other.exec('BEGIN EXCLUSIVE')
  try {
    const first = await modernRequest(address, token, 'tools/call', { name: 'list_tags', arguments: { limit: 1 } })
    assert.equal(first.body.error?.data?.code, 'SERVICE_UNAVAILABLE')
  } finally {
    other.exec('ROLLBACK')
    other.close()
  }
  const again = await modernRequest(address, token, 'tools/call', { name: 'list_tags', arguments: { limit: 1 } })
  assert.equal(again.status, 200)
  assert.equal(again.body.error, undefined)
  assert.equal(Array.isArray(again.body.result?.structuredContent?.data), true)
})

if ((await testDialects()).includes('postgres')) {
  test('postgres: database away inside a tool and before it (authentication): retryable errors with the wait, then recovery', async (t) => {
    const base = await testDatabase('postgres')
    const target = new URL(PG_URL)
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    // Registered before anything that can fail: a proxy left listening keeps the test process
    // alive after the file's tests end, and the whole run waits for it (seen on a loaded machine).
    const started: { app?: Awaited<ReturnType<typeof buildApp>> } = {}
    t.after(async () => { await proxy.setMode('forward'); await started.app?.close(); await proxy.close(); await base.destroy() })
    const url = new URL(PG_URL)
    url.port = String(proxy.port)
    url.searchParams.set('options', `-c search_path=${base.schema}`)
    // The proxy refuses (ECONNREFUSED at once), so the connect timeout only bounds the healthy
    // connections; 500 ms failed the migrations through the proxy on a loaded machine.
    const settings = testSettings({
      PLUGIN_GATEHOUSE_DATABASE_URL: url.toString(), PLUGIN_GATEHOUSE_DATABASE_CONNECT_TIMEOUT_MS: '2000', PLUGIN_GATEHOUSE_DATABASE_QUERY_TIMEOUT_MS: '800',
    })
    const app = started.app = await buildApp({ settings, logger: pino({ level: 'silent' }), webhookWorker: false })
    const { token } = await app.services.credentials.create({ label: 'outage', scopes: SCOPES })
    const address = await app.app.listen({ port: 0, host: '127.0.0.1' })
    const asApp = { app: app.app } as Parameters<typeof connect>[0]
    const modern = await connectModern(asApp, token, { baseUrl: address })
    const legacy = await connect(asApp, token)
    assert.equal(structured(await modern.call('list_tags', { limit: 1 })).data.length >= 0, true)

    await proxy.setMode('refuse')
    // Inside the tool: the credential is still cached, the read fails.
    const inside = toolErrorOf(await modern.call('list_tags', { limit: 1 }))
    assert.deepEqual([inside.code, inside.message, inside.retryable, inside.retryAfterSeconds],
      ['SERVICE_UNAVAILABLE', 'The database cannot be reached or did not answer in time; retry in 5 seconds', true, 5])
    // A 2025-11-25 request needs its session from the database first: refused before the tool, as a JSON-RPC error.
    await assert.rejects(legacy.call('list_tags', { limit: 1 }), (err: Error & { code?: number; data?: unknown }) => {
      assert.equal(err.code, -32603)
      assert.match(err.message, /SERVICE_UNAVAILABLE: The database cannot be reached or did not answer in time; retry in 5 seconds/)
      return true
    })
    // Before the tool: past the two-second credential cache, authentication needs the database.
    await new Promise((r) => setTimeout(r, 2100))
    const before = await modernRequest(address, token, 'tools/call', { name: 'list_tags', arguments: { limit: 1 } })
    assert.equal(before.status, 200)
    assert.equal(before.headers.get('retry-after'), '5')
    assert.deepEqual(before.body.error, {
      code: -32603, message: 'SERVICE_UNAVAILABLE: The database cannot be reached or did not answer in time; retry in 5 seconds',
      data: { code: 'SERVICE_UNAVAILABLE', retryable: true, retryAfterSeconds: 5 },
    })
    await assert.rejects(modern.call('list_tags', { limit: 1 }), /SERVICE_UNAVAILABLE: The database cannot be reached.*retry in 5 seconds/)

    await proxy.setMode('forward')
    for (const c of [modern, legacy]) assert.equal(Array.isArray(structured(await c.call('list_tags', { limit: 1 })).data), true)
    await Promise.all([modern.client.close(), legacy.client.close()])
  })
}
