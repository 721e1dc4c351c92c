// An OAuth-granted credential is managed from the command line like any other: `gatehouse
// credentials pause` makes its access token answer 401 on the very next request (and
// `resume` brings it back: the tokens were not touched), and `gatehouse credentials revoke`
// ends it for good: the access token is 401 at once, the refresh token is invalid_grant, and
// the audit log names the CLI operator who ended the grant. The CLI runs as its own process
// on the serving process's database.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { listAudit } from '../../src/control/audit-log.js'
import { runCli, schemaUrl } from '../cli/helpers/cli.js'
import { mcpInitialize, oauthSite, tokenRequest } from './helpers/oauth-apps.js'
import { Jar, oauthError, register, signIn } from './helpers/hand-flow.js'

const CALLBACK = 'http://127.0.0.1:9/callback'

for (const dialect of await testDialects()) {
  test(`${dialect}: gatehouse credentials pause and revoke hold for an OAuth-granted credential's tokens at once`, { timeout: 180_000 }, async (t) => {
    const site = await oauthSite(dialect, {}, { second: false })
    t.after(() => site.close())
    const { database } = site.a
    const env = { PLUGIN_GATEHOUSE_DATABASE_URL: database.schema ? schemaUrl(database.schema) : database.url }
    const cli = async (...args: string[]) => {
      const res = await runCli(args, { env })
      assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`)
      return res.stdout
    }

    const client = await register(site.base, CALLBACK, 'Terminal Agent')
    const tokens = await signIn(site, new Jar(), client, ['products:read'])
    const [{ credentialId, grantId }] = await site.a.services.oauth.grants()
    assert.equal((await mcpInitialize(site.base, tokens.access_token)).status, 200)
    const listed = JSON.parse(await cli('credentials', 'list', '--json')) as { id: string; label: string; status: string }[]
    assert.deepEqual(listed.filter((c) => c.id === credentialId).map((c) => [c.label, c.status]), [['Terminal Agent (OAuth)', 'active']])

    assert.equal(await cli('credentials', 'pause', credentialId), `${credentialId} is now paused\n`)
    assert.equal((await mcpInitialize(site.base, tokens.access_token)).status, 401, 'paused: refused on the next request')
    assert.equal(await cli('credentials', 'resume', credentialId), `${credentialId} is now active\n`)
    assert.equal((await mcpInitialize(site.base, tokens.access_token)).status, 200, 'pausing kept the tokens')

    assert.equal(await cli('credentials', 'revoke', credentialId), `${credentialId} is now revoked\n`)
    const after = await mcpInitialize(site.base, tokens.access_token)
    assert.equal(after.status, 401, 'revoked: refused on the next request')
    assert.match(String(after.headers.get('www-authenticate')), /resource_metadata=/)
    const refresh = await tokenRequest(site.base, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId })
    assert.equal(refresh.status, 400)
    assert.equal(await oauthError(refresh), 'invalid_grant')
    const left = await database.db.selectFrom('oauth_models').select('model').where('grant_id', '=', grantId).execute()
    assert.deepEqual(left, [], 'every code and token of the grant is gone')

    const { items } = await listAudit(database.db, { category: 'oauth', action: 'revoke', entityId: credentialId, limit: 10 })
    assert.equal(items.length, 1)
    assert.equal(items[0].actor.type, 'cli')
    assert.deepEqual(items[0].metadata, { credentialId, grantIds: [grantId], reason: 'revoke' })
  })
}
