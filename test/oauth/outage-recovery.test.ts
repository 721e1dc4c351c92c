// The authorization server meets a database outage as every other surface does: it answers 503
// `temporarily_unavailable` with a Retry-After (never 500 `server_error`, which tells a client
// to give up), and serves again once the database is back, without a restart.
// - Its first request reads its keys (on a fresh site, writes them): one that meets SQLite's
//   write lock fails that way, and the next one starts it.
// - A registration that cannot write, and a token request whose client cannot be read
//   (PostgreSQL refusing connections), are answered the same way.
// - The machine API, which reads OAuth access tokens through the same store, still answers an
//   outage 503 SERVICE_UNAVAILABLE, though the library's error now wraps the database's.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import SQLite from 'better-sqlite3'
import { buildTestApp, PG_URL, testDatabase, testDialects } from '../helpers/test-app.js'
import { openDatabase } from '../../src/store/database.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import { register, registration } from './helpers/hand-flow.js'
import { tokenRequest } from './helpers/oauth-apps.js'

const CALLBACK = 'http://127.0.0.1:9/callback'

/** Status, Retry-After and OAuth error code of an answer (its body read). */
async function outcome(res: Response): Promise<{ status: number; retryAfter: string | null; error: unknown }> {
  const body = (await res.json().catch(() => ({}))) as { error?: unknown }
  return { status: res.status, retryAfter: res.headers.get('retry-after'), error: body.error }
}

const UNAVAILABLE = { status: 503, retryAfter: '5', error: 'temporarily_unavailable' }

/** An SQLite site listening on a port, with a second connection that can take the write lock. */
async function lockableSite(t: { after(fn: () => Promise<void>): void }) {
  const base = await testDatabase('sqlite', { busyTimeoutMs: 300 })
  const app = await buildTestApp({ dialect: 'sqlite', database: base, env: { PLUGIN_GATEHOUSE_SQLITE_BUSY_TIMEOUT_MS: '300' } })
  t.after(async () => { await app.close(); await base.destroy() })
  const address = await app.app.listen({ port: 0, host: '127.0.0.1' })
  /** Runs `work` while another connection holds the write lock. */
  const locked = async <T>(work: () => Promise<T>): Promise<T> => {
    const other = new SQLite(base.url.slice('sqlite:'.length))
    other.exec('BEGIN EXCLUSIVE')
    try {
      return await work()
    } finally {
      other.exec('ROLLBACK')
      other.close()
    }
  }
  return { address, locked }
}

test('sqlite: an authorization server whose first request met the database locked out answers 503 temporarily_unavailable, and serves once it is back, without a restart', async (t) => {
  const { address, locked } = await lockableSite(t)
  const metadata = () => fetch(`${address}/.well-known/oauth-authorization-server/gatehouse/oauth`)
  assert.deepEqual(await locked(async () => outcome(await metadata())), UNAVAILABLE)
  const again = await metadata()
  assert.equal(again.status, 200)
  assert.equal(typeof ((await again.json()) as { issuer?: unknown }).issuer, 'string')
})

test('sqlite: a client registration that cannot write answers 503 temporarily_unavailable with a Retry-After; once the lock is gone it registers', async (t) => {
  const { address, locked } = await lockableSite(t)
  // Started first, so the registration, not the start, is what meets the lock.
  assert.equal((await fetch(`${address}/.well-known/oauth-authorization-server/gatehouse/oauth`)).status, 200)
  assert.deepEqual(await locked(async () => outcome(await registration(address, CALLBACK))), UNAVAILABLE)
  assert.equal((await registration(address, CALLBACK)).status, 201)
})

for (const dialect of (await testDialects()).filter((d) => d === 'postgres')) {
  test(`${dialect}: with the database refusing connections, the token endpoint answers 503 temporarily_unavailable and the machine API 503 SERVICE_UNAVAILABLE for an OAuth bearer; both serve again when it is back`, async (t) => {
    const base = await testDatabase('postgres')
    const target = new URL(PG_URL)
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    const url = new URL(PG_URL)
    url.port = String(proxy.port)
    const store = openDatabase(url.toString(), { schema: base.schema, connectTimeoutMs: 500, queryTimeoutMs: 800 })
    const app = await buildTestApp({ dialect, database: { ...store, url: url.toString(), schema: base.schema, destroy: () => store.close() } })
    t.after(async () => {
      await proxy.setMode('forward')
      await app.close()
      await store.close().catch(() => {})
      await proxy.close()
      await base.destroy()
    })
    const address = await app.app.listen({ port: 0, host: '127.0.0.1' })
    const client = await register(address, CALLBACK)
    const exchange = () => tokenRequest(address, { grant_type: 'authorization_code', code: 'not-a-code', client_id: client.clientId, redirect_uri: CALLBACK, code_verifier: 'v'.repeat(43) })
    // Not a credential token (no gatehouse prefix): the machine API asks the authorization server.
    const listTags = () => app.app.inject({ url: '/gatehouse/v1/tags', headers: { authorization: 'Bearer an-oauth-access-token-of-no-one' } })

    await proxy.setMode('refuse')
    assert.deepEqual(await outcome(await exchange()), UNAVAILABLE)
    const api = await listTags()
    assert.equal(api.statusCode, 503)
    assert.equal(api.json().error.code, 'SERVICE_UNAVAILABLE')
    assert.equal(api.headers['retry-after'], '5')

    await proxy.setMode('forward')
    const back = await outcome(await exchange())
    assert.equal(back.status, 400)
    assert.equal(back.error, 'invalid_grant')
    assert.equal((await listTags()).statusCode, 401)
  })
}
