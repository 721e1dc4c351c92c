// The rules of sign-in for agents that a well-behaved client never tests, each shown failing
// closed: a redirect URI that is not an exact match is refused before any login; PKCE is
// required, S256 only, and a wrong verifier gets no token; the operator's refusal reaches
// the client as access_denied and grants nothing; the consent form needs the session's CSRF
// token; a client is asked again when it wants more than it was granted (and not when it
// does not); a token is accepted only by the resource it was issued for; refresh tokens are
// bound to their client, and only their client may revoke them; a resource no one serves is refused; RFC error codes throughout;
// each way a client identifies itself (registration, metadata document) can be switched off.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { testDialects } from '../helpers/test-app.js'
import { listAudit } from '../../src/control/audit-log.js'
import { mcpInitialize, oauthSite, tokenRequest } from './helpers/oauth-apps.js'
import { authorizeUrl, consent, csrfOf, exchange, Jar, pkce, register, registration } from './helpers/hand-flow.js'
import { REGISTRATIONS_PER_MINUTE } from '../../src/api/oauth/oauth-routes.js'
import { loopbackCertificate, MemoryOAuthClient, metadataDocument, metadataServer } from './helpers/oauth-client.js'

const CALLBACK = 'http://127.0.0.1:9/callback'

for (const dialect of await testDialects()) {
  test(`${dialect}: the authorization server refuses what the rules forbid`, { timeout: 120_000 }, async (t) => {
    const site = await oauthSite(dialect, {}, { second: false })
    t.after(() => site.close())
    const api = `${site.base}/gatehouse/v1`
    const client = await register(site.base, CALLBACK)

    await t.test('a redirect URI that is not an exact match is refused before any login', async () => {
      for (const bad of [`${CALLBACK}/more`, `${CALLBACK}?x=1`, 'http://127.0.0.1:9/other', 'https://evil.example/callback']) {
        const res = await new Jar().request(authorizeUrl(site.base, client, { redirect_uri: bad, scope: 'products:read', code_challenge: pkce().challenge, code_challenge_method: 'S256' }))
        assert.equal(res.status, 400, bad)
        assert.equal(res.headers.get('location'), null, 'never sent anywhere, not even to the login page')
        assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/)
        const body = await res.text()
        assert.match(body, /invalid_redirect_uri/)
        assert.doesNotMatch(body, /googleapis|<script/)
      }
    })

    await t.test('PKCE is required and S256 only; errors go back to the client as RFC codes', async () => {
      for (const [params, problem] of [[{}, /PKCE/], [{ code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }, /code_challenge_method|plain/]] as const) {
        const res = await new Jar().request(authorizeUrl(site.base, client, { scope: 'products:read', state: 's1', ...params }))
        const to = new URL(String(res.headers.get('location')))
        assert.equal(to.origin + to.pathname, CALLBACK)
        assert.equal(to.searchParams.get('error'), 'invalid_request')
        assert.match(String(to.searchParams.get('error_description')), problem)
        assert.equal(to.searchParams.get('state'), 's1')
      }
    })

    const jar = new Jar()
    const first = pkce()
    await t.test('a wrong PKCE verifier gets no token', async () => {
      const back = await consent(site, jar, client, { scope: 'products:read', code_challenge: first.challenge, code_challenge_method: 'S256', state: 'st-1' }, { decision: 'grant', scopes: 'products:read' })
      assert.equal(back.searchParams.get('state'), 'st-1')
      const code = String(back.searchParams.get('code'))
      const wrong = await exchange(site, client, code, pkce().verifier)
      assert.equal(wrong.status, 400)
      assert.equal(((await wrong.json()) as { error: string }).error, 'invalid_grant')
    })

    await t.test('a token is accepted only by the resource it was issued for', async () => {
      const p = pkce()
      const back = await consent(site, jar, client, { scope: 'products:read', code_challenge: p.challenge, code_challenge_method: 'S256', resource: api }, { decision: 'grant', scopes: 'products:read' })
      const res = await exchange(site, client, String(back.searchParams.get('code')), p.verifier, api)
      assert.equal(res.status, 200)
      const tokens = (await res.json()) as { access_token: string; refresh_token: string }
      const products = await fetch(`${api}/products`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
      assert.equal(products.status, 200, 'the machine API takes its own tokens')
      const orders = await fetch(`${api}/orders`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
      assert.equal(orders.status, 403, 'with the granted scopes only')
      const onMcp = await mcpInitialize(site.base, tokens.access_token)
      assert.equal(onMcp.status, 401)
      assert.match(String(onMcp.headers.get('www-authenticate')), /error="invalid_token"/)

      // A resource Gatehouse does not serve is refused at the authorization endpoint.
      const elsewhere = await jar.request(authorizeUrl(site.base, client, { scope: 'products:read', code_challenge: p.challenge, code_challenge_method: 'S256', resource: 'https://other.example/api', state: 's2' }))
      const to = new URL(String(elsewhere.headers.get('location')))
      assert.equal(to.searchParams.get('error'), 'invalid_target')

      // Refresh tokens are bound to the client they were issued to.
      const other = await register(site.base, CALLBACK, 'Other Agent')
      const stolen = await tokenRequest(site.base, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: other.clientId })
      assert.equal(stolen.status, 400)
      assert.equal(((await stolen.json()) as { error: string }).error, 'invalid_grant')
      // Nor can another client revoke them (RFC 7009 §2.1): answered as for an unknown token, and nothing is revoked.
      const revocation = (token: string, clientId: string) => fetch(`${site.base}/gatehouse/oauth/token/revocation`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, client_id: clientId }).toString() })
      for (const token of [tokens.refresh_token, tokens.access_token]) assert.equal((await revocation(token, other.clientId)).status, 200)
      assert.equal((await fetch(`${api}/products`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status, 200, 'still valid')
      assert.equal((await tokenRequest(site.base, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId })).status, 200, 'still valid')
    })

    await t.test('the same request is not asked again; a wider one is', async () => {
      const same = await jar.follow(authorizeUrl(site.base, client, { scope: 'products:read', code_challenge: first.challenge, code_challenge_method: 'S256', resource: api }), site.base)
      assert.equal(new URL(same.url).origin + new URL(same.url).pathname, CALLBACK, 'granted before: straight back with a code')
      assert.ok(new URL(same.url).searchParams.get('code'))
      const wider = await jar.follow(authorizeUrl(site.base, client, { scope: 'products:read orders:read', code_challenge: first.challenge, code_challenge_method: 'S256', resource: api }), site.base)
      assert.match(new URL(wider.url).pathname, /^\/gatehouse\/cp\/oauth\/consent\//, 'more scopes: the operator is asked again')
      const page = await wider.res.text()
      assert.match(page, /already holds credential/)
    })

    await t.test('a new client is always asked, even in a signed-in browser', async () => {
      const fresh = await register(site.base, CALLBACK, 'Fresh Agent')
      const res = await jar.follow(authorizeUrl(site.base, fresh, { scope: 'products:read', code_challenge: first.challenge, code_challenge_method: 'S256' }), site.base)
      assert.match(new URL(res.url).pathname, /^\/gatehouse\/cp\/oauth\/consent\//)
    })

    await t.test('the consent form needs the session\'s CSRF token', async () => {
      const fresh = await register(site.base, CALLBACK, 'Forged Agent')
      const start = await jar.follow(authorizeUrl(site.base, fresh, { scope: 'products:read', code_challenge: first.challenge, code_challenge_method: 'S256' }), site.base)
      const forged = await jar.request(start.url, { form: { decision: 'grant', scopes: 'products:read' } })
      assert.equal(forged.status, 403)
      assert.equal((await site.a.services.oauth.grants()).filter((g) => g.clientId === fresh.clientId).length, 0)
    })

    await t.test('a refusal reaches the client as access_denied and grants nothing', async () => {
      const refused = await register(site.base, CALLBACK, 'Refused Agent')
      const before = (await site.a.services.credentials.list()).length
      const back = await consent(site, jar, refused, { scope: 'products:read', code_challenge: first.challenge, code_challenge_method: 'S256', state: 'no' }, { decision: 'refuse' })
      assert.equal(back.searchParams.get('error'), 'access_denied')
      assert.equal(back.searchParams.get('state'), 'no')
      assert.equal(back.searchParams.get('code'), null)
      assert.equal((await site.a.services.credentials.list()).length, before)
      const { items } = await listAudit(site.a.services.database.db, { category: 'oauth', action: 'refuse', limit: 10 })
      assert.equal(items.length, 1)
      assert.equal(items[0].metadata.clientId, refused.clientId)
    })

    await t.test('scopes outside the request are refused by name', async () => {
      const c = await register(site.base, CALLBACK, 'Greedy Form')
      const start = await jar.follow(authorizeUrl(site.base, c, { scope: 'products:read', code_challenge: first.challenge, code_challenge_method: 'S256' }), site.base)
      const page = await start.res.text()
      const res = await jar.request(start.url, { form: { _csrf: csrfOf(page), decision: 'grant', scopes: ['products:read', 'orders:read_sensitive'] } })
      assert.equal(res.status, 400)
      assert.match(await res.text(), /orders:read_sensitive/)
    })
  })

  test(`${dialect}: registration takes plain http only to the loopback interface, and a limited number a minute from one address`, async (t) => {
    const site = await oauthSite(dialect, {}, { second: false })
    t.after(() => site.close())
    // OAuth 2.1 §2.3.1: a code sent over plain http to another host can be read on the way.
    const plain = await registration(site.base, 'http://evil.example/cb')
    assert.equal(plain.status, 400)
    const refused = (await plain.json()) as { error: string; error_description: string }
    assert.equal(refused.error, 'invalid_redirect_uri')
    assert.match(refused.error_description, /http:\/\/evil\.example\/cb uses http on a host other than localhost/)
    let made = 0
    for (const uri of ['https://agent.example/cb', 'http://127.0.0.1:9/cb', 'http://localhost:9/cb', 'http://[::1]:9/cb']) {
      const res = await registration(site.base, uri)
      assert.equal(res.status, 201, `${uri}: ${await res.clone().text()}`)
      made++
    }
    // Registration needs no credential: one address may ask REGISTRATIONS_PER_MINUTE times a minute
    // (the refused request above counted).
    for (; made + 1 < REGISTRATIONS_PER_MINUTE; made++) {
      const res = await registration(site.base, CALLBACK)
      assert.equal(res.status, 201)
    }
    const over = await registration(site.base, CALLBACK)
    assert.equal(over.status, 429)
    assert.ok(Number(over.headers.get('retry-after')) > 0)
    assert.match(((await over.json()) as { error_description: string }).error_description, /too many client registrations from this address/)
  })

  test(`${dialect}: with dynamic registration off, no registration endpoint is published or served, and metadata documents on internal addresses are refused`, async (t) => {
    const site = await oauthSite(dialect, { PLUGIN_GATEHOUSE_OAUTH_DYNAMIC_REGISTRATION: 'false' }, { second: false })
    t.after(() => site.close())
    const meta = (await (await fetch(`${site.base}/.well-known/oauth-authorization-server/gatehouse/oauth`)).json()) as Record<string, unknown>
    assert.equal(meta.registration_endpoint, undefined)
    assert.equal(meta.client_id_metadata_document_supported, true)
    assert.deepEqual(meta.code_challenge_methods_supported, ['S256'])
    assert.equal(meta.issuer, `${site.base}/gatehouse/oauth`)
    const reg = await fetch(`${site.base}/gatehouse/oauth/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"redirect_uris":["http://127.0.0.1:9/cb"]}' })
    assert.equal(reg.status, 404)
    // Without PLUGIN_GATEHOUSE_OAUTH_METADATA_ALLOW_PRIVATE, a client id on a loopback address is
    // never fetched, however the address is written (a literal is never looked up: the check on
    // resolved addresses let these connect, a port scan from outside).
    const connections: Socket[] = []
    const listener = createServer((socket) => { connections.push(socket); socket.destroy() })
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
    t.after(() => new Promise<void>((resolve) => listener.close(() => resolve())))
    const port = (listener.address() as AddressInfo).port
    for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '2130706433', '0x7f.1', 'localhost']) {
      const res = await new Jar().request(authorizeUrl(site.base, { clientId: `https://${host}:${port}/client.json`, redirectUri: CALLBACK }, { scope: 'products:read', code_challenge: pkce().challenge, code_challenge_method: 'S256' }))
      assert.equal(res.status, 400, host)
      assert.equal(res.headers.get('location'), null)
      assert.match(await res.text(), /invalid_client/)
    }
    assert.equal(connections.length, 0, 'no connection was made')
  })

  test(`${dialect}: with Client ID Metadata Documents off, a URL client id is refused before any login and never fetched`, async (t) => {
    const cert = loopbackCertificate()
    t.after(() => cert.remove())
    const metadata = await metadataServer(cert, metadataDocument(new MemoryOAuthClient(CALLBACK)))
    t.after(() => metadata.close())
    // The document is valid and may be fetched (internal addresses allowed, its CA trusted): only the setting can refuse it.
    const fetchable = { PLUGIN_GATEHOUSE_OAUTH_METADATA_ALLOW_PRIVATE: 'true', PLUGIN_GATEHOUSE_OAUTH_METADATA_CA_FILE: cert.caFile }
    const client = { clientId: metadata.url, redirectUri: CALLBACK }
    const params = { scope: 'products:read', code_challenge: pkce().challenge, code_challenge_method: 'S256' }

    const on = await oauthSite(dialect, fetchable, { second: false })
    try {
      const reached = await new Jar().follow(authorizeUrl(on.base, client, params), on.base)
      assert.equal(new URL(reached.url).pathname, '/gatehouse/cp/login', 'with the setting on (the default), the same request reaches the login')
      assert.equal(metadata.fetched, 1)
    } finally {
      await on.close()
    }

    const site = await oauthSite(dialect, { ...fetchable, PLUGIN_GATEHOUSE_OAUTH_CLIENT_METADATA_DOCUMENTS: 'false' }, { second: false })
    t.after(() => site.close())
    const meta = (await (await fetch(`${site.base}/.well-known/oauth-authorization-server/gatehouse/oauth`)).json()) as Record<string, unknown>
    assert.equal(meta.client_id_metadata_document_supported, false)
    assert.equal(meta.registration_endpoint, `${site.base}/gatehouse/oauth/reg`, 'registration is a setting of its own')
    const res = await new Jar().request(authorizeUrl(site.base, client, { ...params, state: 'cimd-off' }))
    assert.equal(res.status, 400)
    assert.equal(res.headers.get('location'), null, 'never sent anywhere, not even to the login page')
    assert.match(await res.text(), /invalid_client/)
    assert.equal(metadata.fetched, 1, 'the document was not fetched')
    // The token endpoint does not know the client either.
    const token = await tokenRequest(site.base, { grant_type: 'refresh_token', refresh_token: 'x', client_id: metadata.url })
    assert.equal(token.status, 401)
    assert.equal(((await token.json()) as { error: string }).error, 'invalid_client')
    assert.equal(metadata.fetched, 1)
    // Registered clients still sign in.
    const registered = await register(site.base, CALLBACK)
    const reached = await new Jar().follow(authorizeUrl(site.base, registered, params), site.base)
    assert.equal(new URL(reached.url).pathname, '/gatehouse/cp/login')
  })
}
