// PLUGIN_GATEHOUSE_OAUTH_MAX_SCOPES caps what any OAuth grant may receive, whatever a client
// asks for and whatever an operator's form says: the metadata publishes only the capped
// scopes, the consent page offers only those (the rest are listed as not grantable), a
// forged form that ticks more is refused by name and grants nothing, and the credential and
// its tokens hold only allowed scopes (a refresh cannot ask for more either).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { oauthSite, tokenRequest } from './helpers/oauth-apps.js'
import { authorizeUrl, csrfOf, exchange, Jar, oauthError, pkce, register, type Tokens } from './helpers/hand-flow.js'

const CALLBACK = 'http://127.0.0.1:9/callback'
const CAP = ['auth:read', 'products:read']

const ticks = (html: string) => [...html.matchAll(/<input type="checkbox" name="scopes" value="([^"]+)"/g)].map((m) => m[1]).sort()

for (const dialect of await testDialects()) {
  test(`${dialect}: PLUGIN_GATEHOUSE_OAUTH_MAX_SCOPES caps what a grant may receive`, async (t) => {
    const site = await oauthSite(dialect, { PLUGIN_GATEHOUSE_OAUTH_MAX_SCOPES: CAP.join(',') }, { second: false })
    t.after(() => site.close())
    const api = `${site.base}/gatehouse/v1`
    const { oauth, credentials } = site.a.services

    // What clients are told they may ask for.
    const server = (await (await fetch(`${site.base}/.well-known/oauth-authorization-server/gatehouse/oauth`)).json()) as { scopes_supported: string[] }
    assert.deepEqual(server.scopes_supported, CAP)
    for (const path of ['/gatehouse/mcp', '/gatehouse/v1']) {
      const resource = (await (await fetch(`${site.base}/.well-known/oauth-protected-resource${path}`)).json()) as { scopes_supported: string[] }
      assert.deepEqual(resource.scopes_supported, CAP, path)
    }

    // A client asks for more than the cap; the operator is offered only what the cap allows.
    const client = await register(site.base, CALLBACK, 'Greedy Agent')
    const jar = new Jar()
    await jar.login(site.base)
    const p = pkce()
    const start = await jar.follow(authorizeUrl(site.base, client, { scope: 'products:read orders:read auth:read orders:read_sensitive', code_challenge: p.challenge, code_challenge_method: 'S256', resource: api }), site.base)
    assert.match(new URL(start.url).pathname, /^\/gatehouse\/cp\/oauth\/consent\//)
    const page = await start.res.text()
    assert.deepEqual(ticks(page), CAP)
    const unavailable = /Also asked for, not grantable here: ([^<]*(?:<code>[^<]*<\/code>\s*)+)/.exec(page)?.[1] ?? ''
    assert.deepEqual([...unavailable.matchAll(/<code>([^<]+)<\/code>/g)].map((m) => m[1]).sort(), ['orders:read', 'orders:read_sensitive'])

    // A forged answer that ticks a scope above the cap is refused by name; nothing is granted.
    const before = (await credentials.list()).length
    const forged = await jar.request(start.url, { form: { _csrf: csrfOf(page), decision: 'grant', scopes: ['products:read', 'orders:read'] } })
    assert.equal(forged.status, 400)
    assert.match(await forged.text(), /orders:read/)
    assert.equal((await credentials.list()).length, before)
    assert.deepEqual((await oauth.grants()).filter((g) => g.clientId === client.clientId), [])

    // The operator grants what the cap allows: the credential and its tokens hold exactly that.
    const granted = await jar.request(start.url, { form: { _csrf: csrfOf(page), decision: 'grant', scopes: CAP } })
    assert.equal(granted.status, 303, await granted.clone().text())
    const back = new URL((await jar.follow(new URL(String(granted.headers.get('location')), site.base).href, site.base)).url)
    const res = await exchange(site, client, String(back.searchParams.get('code')), p.verifier, api)
    assert.equal(res.status, 200)
    const tokens = (await res.json()) as Tokens
    assert.deepEqual(tokens.scope.split(' ').sort(), CAP)
    const [link] = (await oauth.grants()).filter((g) => g.clientId === client.clientId)
    assert.deepEqual([...(await credentials.get(link.credentialId)).scopes].sort(), CAP)
    const call = (path: string) => fetch(`${api}${path}`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    assert.equal((await call('/products')).status, 200)
    const orders = await call('/orders')
    assert.equal(orders.status, 403)
    assert.match(await orders.text(), /orders:read/)

    // A refresh cannot widen what was granted.
    const wider = await tokenRequest(site.base, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId, scope: 'products:read orders:read' })
    assert.equal(wider.status, 400)
    assert.equal(await oauthError(wider), 'invalid_scope')
  })
}
