// MCP sessions live in the database: a session opened on one app instance continues on
// another serving the same database, carrying the client's name into the approvals it
// requests there. A session belongs to the credential that opened it; other tokens, unknown
// ids and idle sessions are answered 404, and the client may end its session.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { buildTestApp, testDatabase, testDialects } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { connect, listening, MCP, structured } from './helpers/mcp-client.js'

const WRITES = { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' }
const httpCode = (code: number) => (err: Error & { code?: number }) => err.code === code

for (const dialect of await testDialects()) {
  test(`${dialect}: a session opened on one instance continues on another on the same database, bound to its credential`, async (t) => {
    const database = await testDatabase(dialect)
    const first = await buildTestApp({ dialect, database, env: WRITES })
    const second = await buildTestApp({ dialect, database, env: WRITES })
    t.after(async () => {
      await first.close()
      await second.close()
      await database.destroy()
    })
    const { ids } = await seedSmallCatalog(first.services.store)
    const token = await first.issueToken(['variants:read', 'control:approvals:request', 'control:approvals:read'])

    const opened = await connect(first, token, { name: 'claude-code', version: '2.0.1' })
    const sessionId = opened.transport.sessionId as string
    assert.match(sessionId, /^[A-Za-z0-9_-]{43}$/)
    // The database keeps a digest of the id, the credential and the client from initialize.
    const rows = await database.db.selectFrom('mcp_sessions').selectAll().execute()
    assert.equal(rows.length, 1)
    assert.equal(rows[0].id_digest, createHash('sha256').update(sessionId).digest('hex'))
    assert.deepEqual([rows[0].client_name, rows[0].client_version], ['claude-code', '2.0.1'])
    assert.equal(rows[0].credential_id, (await first.services.credentials.authenticate(token, '127.0.0.1')).credentialId)

    // The second instance has never seen this session; it continues it from the database.
    const continued = await connect(second, token, { name: 'ignored', sessionId })
    assert.deepEqual(await continued.toolNames(), ['get_approval', 'get_variants', 'list_variants', 'request_approval'])
    const approval = structured(await continued.call('request_approval', { actionType: 'variant.setPrice', payload: { variantId: ids.variants, price: 21 }, reason: 'match competitor' })).data
    assert.equal(approval.metadata.source, 'mcp')
    assert.equal(approval.metadata.agentId, 'claude-code', 'the client name from initialize on the first instance')
    assert.equal(approval.metadata.agentVersion, '2.0.1')
    assert.match(approval.metadata.traceId, /^req_/)
    // And back on the first instance, the same session reads it.
    assert.equal(structured(await opened.call('get_approval', { approvalId: approval.id })).data.id, approval.id)

    // Another credential presenting the session id is refused, on either instance.
    const other = await first.issueToken(['variants:read', 'control:approvals:request', 'control:approvals:read'])
    for (const app of [first, second]) {
      const stolen = await connect(app, other, { sessionId })
      await assert.rejects(stolen.client.listTools(), httpCode(404))
    }
    // An unknown id is refused the same way; so is a request without one.
    const unknown = await connect(second, token, { sessionId: 'x'.repeat(43) })
    await assert.rejects(unknown.client.listTools(), httpCode(404))
    const res = await fetch((await listening(second)) + MCP, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    assert.equal(res.status, 400)
    assert.match((await res.json() as { error: { message: string } }).error.message, /Mcp-Session-Id header is required/)

    // The owner still has it; it ends it on the second instance, and the first no longer knows it.
    assert.equal((await opened.toolNames()).length, 4)
    await continued.transport.terminateSession()
    assert.equal((await database.db.selectFrom('mcp_sessions').selectAll().execute()).length, 0)
    await assert.rejects(opened.client.listTools(), httpCode(404))
  })
}

test('a session idle past the limit is gone: the client must initialize again', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['products:read'])
  const mcp = await connect(app, token)
  await app.database.db.updateTable('mcp_sessions').set({ last_seen_at: Date.now() - 25 * 3_600_000 }).execute()
  await assert.rejects(mcp.client.listTools(), httpCode(404))
  const fresh = await connect(app, token)
  assert.deepEqual(await fresh.toolNames(), ['get_products', 'list_products'])
  // Opening a session sweeps the idle ones.
  assert.equal((await app.database.db.selectFrom('mcp_sessions').selectAll().execute()).length, 1)
})
