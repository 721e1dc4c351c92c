// A client that comes back for wider scopes is asked again, and when the operator consents
// its existing credential is updated: the same credential (no second one), its scopes as
// granted now, the new tokens reaching what the wider grant allows, the grant it replaces
// ended (its access and refresh tokens refused), and the update in the audit log.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { listAudit } from '../../src/control/audit-log.js'
import { oauthSite, tokenRequest } from './helpers/oauth-apps.js'
import { authorizeUrl, Jar, oauthError, pkce, register, signIn } from './helpers/hand-flow.js'

const CALLBACK = 'http://127.0.0.1:9/callback'

for (const dialect of await testDialects()) {
  test(`${dialect}: consenting to wider scopes updates the client's credential`, async (t) => {
    const site = await oauthSite(dialect, {}, { second: false })
    t.after(() => site.close())
    const api = `${site.base}/gatehouse/v1`
    const { oauth, credentials, database } = site.a.services
    const call = (token: string, path: string) => fetch(`${api}${path}`, { headers: { authorization: `Bearer ${token}` } })

    const client = await register(site.base, CALLBACK, 'Growing Agent')
    const jar = new Jar()
    const first = await signIn(site, jar, client, ['products:read'], { resource: api })
    const [firstLink] = await oauth.grants()
    const credentialId = firstLink.credentialId
    assert.deepEqual((await credentials.get(credentialId)).scopes, ['products:read'])
    assert.equal((await call(first.access_token, '/products')).status, 200)
    assert.equal((await call(first.access_token, '/orders')).status, 403)
    const count = (await credentials.list()).length

    // The client asks for more: the operator sees the credential it holds, and grants the wider set.
    const asked = await jar.follow(authorizeUrl(site.base, client, { scope: 'products:read orders:read', code_challenge: pkce().challenge, code_challenge_method: 'S256', resource: api }), site.base)
    assert.match(new URL(asked.url).pathname, /^\/gatehouse\/cp\/oauth\/consent\//, 'wider scopes are never granted without asking')
    assert.match(await asked.res.text(), new RegExp(`already holds credential <a href="/gatehouse/cp/accounts/${credentialId}">Growing Agent \\(OAuth\\)</a>`))
    const second = await signIn(site, jar, client, ['products:read', 'orders:read'], { resource: api })

    // The same credential, widened; no second one.
    assert.equal((await credentials.list()).length, count)
    const updated = await credentials.get(credentialId)
    assert.deepEqual([...updated.scopes].sort(), ['orders:read', 'products:read'])
    assert.equal(updated.label, 'Growing Agent (OAuth)')
    const links = (await oauth.grants()).filter((g) => g.clientId === client.clientId)
    assert.equal(links.length, 2)
    assert.ok(links.every((g) => g.credentialId === credentialId), 'both grants are the one credential')
    const secondGrant = links.find((g) => g.grantId !== firstLink.grantId)?.grantId
    assert.ok(secondGrant)
    assert.deepEqual(second.scope.split(' ').sort(), ['orders:read', 'products:read'])
    assert.equal((await call(second.access_token, '/orders')).status, 200, 'the new token reaches what the wider grant allows')
    assert.equal((await call(second.access_token, '/products')).status, 200)

    // The grant it replaced is over: its tokens are refused.
    assert.equal((await call(first.access_token, '/products')).status, 401)
    const stale = await tokenRequest(site.base, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.clientId })
    assert.equal(stale.status, 400)
    assert.equal(await oauthError(stale), 'invalid_grant')

    // Audit: the consent says it updated the credential, and the credential's own update is recorded.
    const grants = (await listAudit(database.db, { category: 'oauth', action: 'grant', limit: 10 })).items
    assert.deepEqual(grants.map((r) => [r.entity?.id, r.metadata.updated, r.metadata.grantId]), [[credentialId, false, firstLink.grantId], [credentialId, true, secondGrant]])
    assert.deepEqual(grants[1].metadata.scopes, ['products:read', 'orders:read'])
    const changes = (await listAudit(database.db, { category: 'credential', entityId: credentialId, limit: 10 })).items
    assert.deepEqual(changes.map((r) => [r.action, r.actor]), [['create', { type: 'admin', id: grants[0].actor.id }], ['update', { type: 'admin', id: grants[0].actor.id }]])
  })
}
