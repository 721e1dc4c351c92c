// A credential keeps at most MCP_SESSION_LIMITS.perCredential MCP sessions: opening one more
// ends its least recently used session (answered 404 from then on, so its client initializes
// again); other credentials' sessions are not touched.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { MCP_SESSION_LIMITS } from '../../src/auth/mcp-sessions.js'
import { connect } from './helpers/mcp-client.js'

const httpCode = (code: number) => (err: Error & { code?: number }) => err.code === code

for (const dialect of await testDialects()) {
  test(`${dialect}: a credential keeps at most ${MCP_SESSION_LIMITS.perCredential} MCP sessions; opening another ends its least recently used`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    const { credential, token } = await app.services.credentials.create({ label: 'looping agent', scopes: ['products:read'] })
    const other = await app.issueToken(['products:read'])
    const oldest = await connect(app, token)
    const bystander = await connect(app, other)
    const sessions = () => app.database.db.selectFrom('mcp_sessions').select('id_digest').where('credential_id', '=', credential.id).execute()
    // The first session was last used an hour ago; the limit is filled with sessions used since.
    const now = Date.now()
    await app.database.db.updateTable('mcp_sessions').set({ last_seen_at: now - 3_600_000 }).where('credential_id', '=', credential.id).execute()
    await app.database.db.insertInto('mcp_sessions').values(Array.from({ length: MCP_SESSION_LIMITS.perCredential - 1 }, (_, i) => ({
      id_digest: `filler-${String(i).padStart(3, '0')}`, credential_id: credential.id, client_name: 'loop', client_version: '1', created_at: now - 1_800_000, last_seen_at: now - 1_800_000,
    }))).execute()
    assert.equal((await sessions()).length, MCP_SESSION_LIMITS.perCredential)
    assert.deepEqual(await oldest.toolNames(), ['get_products', 'list_products'], 'at the limit, every session still works')
    await app.database.db.updateTable('mcp_sessions').set({ last_seen_at: now - 3_600_000 }).where('credential_id', '=', credential.id).where('client_name', '!=', 'loop').execute()

    const newest = await connect(app, token)
    assert.equal((await sessions()).length, MCP_SESSION_LIMITS.perCredential, 'one more session, one fewer old one')
    await assert.rejects(oldest.client.listTools(), httpCode(404))
    assert.deepEqual(await newest.toolNames(), ['get_products', 'list_products'])
    assert.deepEqual(await bystander.toolNames(), ['get_products', 'list_products'], "another credential's session is not touched")
  })
}
