// Refresh tokens are replaced at every use, and presenting one that was already replaced is
// taken as a sign it was stolen: the token endpoint answers invalid_grant and revokes the
// whole grant, so the current access token is refused at once (by either serving process)
// and the current refresh token is dead too. The revocation is in the audit log.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { until } from '../helpers/until.js'
import { listAudit } from '../../src/control/audit-log.js'
import { mcpInitialize, oauthSite, tokenRequest } from './helpers/oauth-apps.js'
import { Jar, oauthError, register, signIn, type Tokens } from './helpers/hand-flow.js'

const CALLBACK = 'http://127.0.0.1:9/callback'

for (const dialect of await testDialects()) {
  test(`${dialect}: reusing a replaced refresh token revokes the grant and all its tokens`, async (t) => {
    const site = await oauthSite(dialect)
    t.after(() => site.close())
    const client = await register(site.base, CALLBACK, 'Leaky Agent')
    const refresh = (origin: string, token: string) => tokenRequest(origin, { grant_type: 'refresh_token', refresh_token: token, client_id: client.clientId })

    const first = await signIn(site, new Jar(), client, ['products:read'])
    const [{ grantId, credentialId }] = await site.a.services.oauth.grants()
    const rotated = await refresh(site.base, first.refresh_token)
    assert.equal(rotated.status, 200)
    const current = (await rotated.json()) as Tokens
    assert.notEqual(current.refresh_token, first.refresh_token)
    for (const origin of [site.base, site.baseB]) assert.equal((await mcpInitialize(origin, current.access_token)).status, 200, origin)

    // The replaced refresh token comes back (to the other process): refused, and the grant ends.
    const reused = await refresh(site.baseB, first.refresh_token)
    assert.equal(reused.status, 400)
    assert.equal(await oauthError(reused), 'invalid_grant')
    for (const origin of [site.base, site.baseB]) {
      const after = await mcpInitialize(origin, current.access_token)
      assert.equal(after.status, 401, origin)
      assert.match(String(after.headers.get('www-authenticate')), /resource_metadata=/)
    }
    const dead = await refresh(site.base, current.refresh_token)
    assert.equal(dead.status, 400)
    assert.equal(await oauthError(dead), 'invalid_grant')

    // Nothing of the grant is left to present; the credential itself is untouched (the operator decides about it).
    const rows = await site.a.services.database.db.selectFrom('oauth_models').select('model').where('grant_id', '=', grantId).execute()
    assert.deepEqual(rows, [])
    assert.equal((await site.a.services.credentials.get(credentialId)).status, 'active')
    // The library's revocation event is recorded beside the request, not inside it.
    await until(async () => (await listAudit(site.a.services.database.db, { category: 'oauth', action: 'revoke', entityId: grantId, limit: 10 })).items
      .some((r) => r.entity?.type === 'oauth_grant' && r.metadata.grantId === grantId), 'the grant revocation in the audit log')
  })
}
