// Registration is open to anyone (RFC 7591, rate-limited per address), so a client that
// registered itself and never won an operator's consent is kept for UNUSED_CLIENT_TTL_MS, not
// for ever; a consent keeps it. Once its time is out it is an unknown client at the
// authorization and token endpoints (the adapter's periodic sweep of expired rows removes it).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { testDialects } from '../helpers/test-app.js'
import { UNUSED_CLIENT_TTL_MS } from '../../src/oauth/model-store.js'
import { oauthSite, tokenRequest } from './helpers/oauth-apps.js'
import { authorizeUrl, csrfOf, Jar, pkce, register, signIn, type HandClient } from './helpers/hand-flow.js'

const CALLBACK = 'http://127.0.0.1:9/callback'
const digest = (id: string) => createHash('sha256').update(id).digest('hex')

for (const dialect of await testDialects()) {
  test(`${dialect}: a registered client nobody consented to expires after a day; one granted stays`, async (t) => {
    const site = await oauthSite(dialect, {}, { second: false })
    t.after(() => site.close())
    const db = site.a.services.database.db
    const expiryOf = async (client: HandClient) => {
      const row = await db.selectFrom('oauth_models').select('expires_at').where('model', '=', 'Client').where('id_digest', '=', digest(client.clientId)).executeTakeFirst()
      return row === undefined ? 'gone' : row.expires_at === null ? null : Number(row.expires_at)
    }

    const before = Date.now()
    const idle = await register(site.base, CALLBACK, 'Idle Agent')
    const used = await register(site.base, CALLBACK, 'Used Agent')
    for (const client of [idle, used]) {
      const expiry = await expiryOf(client)
      assert.ok(typeof expiry === 'number' && expiry >= before + UNUSED_CLIENT_TTL_MS && expiry <= Date.now() + UNUSED_CLIENT_TTL_MS, `expires a day after registering: ${expiry}`)
    }
    assert.equal(UNUSED_CLIENT_TTL_MS, 24 * 3_600_000)
    // Registration leaves nothing else behind (no registration access token: management is off).
    assert.deepEqual((await db.selectFrom('oauth_models').select('model').execute()).map((r) => r.model), ['Client', 'Client'])

    // The operator's consent keeps the client.
    await signIn(site, new Jar(), used, ['products:read'])
    assert.equal(await expiryOf(used), null)

    // A day later (its expiry moved to now): the idle client is unknown everywhere.
    await db.updateTable('oauth_models').set({ expires_at: Date.now() - 1 }).where('model', '=', 'Client').where('id_digest', '=', digest(idle.clientId)).execute()
    const p = pkce()
    const authorize = await new Jar().request(authorizeUrl(site.base, idle, { scope: 'products:read', code_challenge: p.challenge, code_challenge_method: 'S256' }))
    assert.equal(authorize.status, 400)
    assert.equal(authorize.headers.get('location'), null, 'never sent anywhere')
    assert.match(await authorize.text(), /invalid_client/)
    const token = await tokenRequest(site.base, { grant_type: 'refresh_token', refresh_token: 'x', client_id: idle.clientId })
    assert.deepEqual([token.status, ((await token.json()) as { error: string }).error], [401, 'invalid_client'])
    // The granted one signs in again, and registering anew works for the idle host.
    await signIn(site, new Jar(), used, ['products:read'])
    const again = await register(site.base, CALLBACK, 'Idle Agent')
    assert.notEqual(again.clientId, idle.clientId)

    assert.equal(await expiryOf(used), null)

    // A registration that runs out while the operator looks at its consent page gets nothing.
    const late = await register(site.base, CALLBACK, 'Late Agent')
    const jar = new Jar()
    await jar.login(site.base)
    const start = await jar.follow(authorizeUrl(site.base, late, { scope: 'products:read', code_challenge: p.challenge, code_challenge_method: 'S256' }), site.base)
    assert.match(new URL(start.url).pathname, /^\/gatehouse\/cp\/oauth\/consent\//)
    const page = await start.res.text()
    await db.updateTable('oauth_models').set({ expires_at: Date.now() - 1 }).where('model', '=', 'Client').where('id_digest', '=', digest(late.clientId)).execute()
    const credentialsBefore = (await site.a.services.credentials.list()).length
    const answer = await jar.request(start.url, { form: { _csrf: csrfOf(page), decision: 'grant', scopes: ['products:read'] } })
    assert.equal(answer.status, 404)
    assert.match(await answer.text(), /no longer known/)
    assert.equal((await site.a.services.credentials.list()).length, credentialsBefore, 'no credential made for it')
    assert.equal(await expiryOf(late) !== null, true, 'and it is not kept')
  })
}
