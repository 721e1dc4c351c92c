// The authorization server reads its keys (on a fresh site, writes them) at its first request.
// A first request that meets the database locked out fails; the next one, once the database is
// back, is served: the failed start is not kept until a restart.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import SQLite from 'better-sqlite3'
import { buildTestApp, testDatabase } from '../helpers/test-app.js'

test('sqlite: an authorization server whose first request met the database locked out serves once it is back, without a restart', async (t) => {
  const base = await testDatabase('sqlite', { busyTimeoutMs: 300 })
  const app = await buildTestApp({ dialect: 'sqlite', database: base, env: { PLUGIN_GATEHOUSE_SQLITE_BUSY_TIMEOUT_MS: '300' } })
  t.after(async () => { await app.close(); await base.destroy() })
  const address = await app.app.listen({ port: 0, host: '127.0.0.1' })
  const metadata = () => fetch(`${address}/.well-known/oauth-authorization-server/gatehouse/oauth`)
  const other = new SQLite(base.url.slice('sqlite:'.length))
  other.exec('BEGIN EXCLUSIVE')
  try {
    const first = await metadata()
    assert.notEqual(first.status, 200)
    await first.body?.cancel()
  } finally {
    other.exec('ROLLBACK')
    other.close()
  }
  const again = await metadata()
  assert.equal(again.status, 200)
  assert.equal(typeof ((await again.json()) as { issuer?: unknown }).issuer, 'string')
})
