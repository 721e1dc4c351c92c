// The authorization server's metadata (RFC 8414) lists what Gatehouse supports and nothing
// else, and each field is shown true by using it: the endpoints drive a whole flow; the
// scopes are the scope catalogue's (flag-gated ones only while their flag is on, the cap in
// grant-scope-cap.test.ts); only `code` responses, only in the query; only the authorization
// code and refresh token grants; PKCE S256 only; each token and revocation endpoint auth
// method works and no other is accepted at registration; the `iss` parameter comes back.
// What the library could do but Gatehouse does not offer (OpenID fields, JWKS, pushed
// requests, DPoP) is neither published nor served. The settings' forms (registration off,
// metadata documents off) are in authorization-safety.test.ts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { mcpInitialize, oauthSite, tokenRequest, type Site } from './helpers/oauth-apps.js'
import { authorizeUrl, consent, exchange, Jar, oauthError, pkce, register, registration, type HandClient, type Tokens } from './helpers/hand-flow.js'

const CALLBACK = 'http://127.0.0.1:9/callback'

const FIELDS = [
  'authorization_endpoint',
  'authorization_response_iss_parameter_supported',
  'client_id_metadata_document_supported',
  'code_challenge_methods_supported',
  'grant_types_supported',
  'issuer',
  'registration_endpoint',
  'response_modes_supported',
  'response_types_supported',
  'revocation_endpoint',
  'revocation_endpoint_auth_methods_supported',
  'scopes_supported',
  'token_endpoint',
  'token_endpoint_auth_methods_supported',
]
const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post']

type Metadata = Record<string, unknown> & { scopes_supported: string[] }

async function metadataOf(site: Site): Promise<Metadata> {
  const res = await fetch(`${site.base}/.well-known/oauth-authorization-server/gatehouse/oauth`)
  assert.equal(res.status, 200)
  return (await res.json()) as Metadata
}

/** A form POST with extra headers (client authentication). */
const post = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() })

const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}` })

/** Where the authorization endpoint sent the browser, with the answer's parameters from the query or the fragment. */
function answer(res: Response): { to: string; query: URLSearchParams; fragment: URLSearchParams } {
  const to = new URL(String(res.headers.get('location')))
  return { to: to.origin + to.pathname, query: to.searchParams, fragment: new URLSearchParams(to.hash.slice(1)) }
}

for (const dialect of await testDialects()) {
  test(`${dialect}: the authorization server metadata lists what Gatehouse supports, and each field holds`, { timeout: 120_000 }, async (t) => {
    const site = await oauthSite(dialect, {}, { second: false })
    t.after(() => site.close())
    const meta = await metadataOf(site)
    const issuer = `${site.base}/gatehouse/oauth`
    const jar = new Jar()
    await jar.login(site.base)
    const challenge = pkce().challenge

    await t.test('exactly these fields, at each address clients look', async () => {
      assert.deepEqual(Object.keys(meta).sort(), FIELDS)
      for (const path of ['/gatehouse/oauth/.well-known/oauth-authorization-server', '/gatehouse/oauth/.well-known/openid-configuration']) {
        assert.deepEqual(await (await fetch(site.base + path)).json(), meta, path)
      }
      assert.equal(meta.issuer, issuer)
      assert.deepEqual([meta.authorization_endpoint, meta.token_endpoint, meta.registration_endpoint, meta.revocation_endpoint],
        [`${issuer}/auth`, `${issuer}/token`, `${issuer}/reg`, `${issuer}/token/revocation`])
    })

    await t.test('scopes_supported is the scope catalogue: what is served now, no openid, no deprecated alias', async () => {
      const { scopes, settings } = site.a.services
      assert.deepEqual(meta.scopes_supported, scopes.enabled(settings).filter((x) => !x.deprecatedFor).map((x) => x.scope))
      for (const x of ['products:read', 'orders:read_sensitive', 'changes:read', 'syncstate:write']) assert.ok(meta.scopes_supported.includes(x), x)
      // openid: no ID tokens; consumers:read: a deprecated alias; control and addresses scopes: their flags are off.
      for (const x of ['openid', 'offline_access', 'consumers:read', 'control:actions:execute', 'addresses:read']) assert.ok(!meta.scopes_supported.includes(x), x)
      const prm = (await (await fetch(`${site.base}/.well-known/oauth-protected-resource/gatehouse/mcp`)).json()) as { scopes_supported: string[] }
      assert.deepEqual(prm.scopes_supported, meta.scopes_supported)
    })

    await t.test('the endpoints drive a whole flow: register, authorize (query, iss), code, refresh, revoke', async () => {
      assert.deepEqual(meta.response_types_supported, ['code'])
      assert.deepEqual(meta.response_modes_supported, ['query'])
      assert.deepEqual(meta.grant_types_supported, ['authorization_code', 'refresh_token'])
      assert.equal(meta.authorization_response_iss_parameter_supported, true)
      const client = await register(site.base, CALLBACK, 'Metadata Agent')
      const p = pkce()
      const back = await consent(site, jar, client, { scope: 'products:read', code_challenge: p.challenge, code_challenge_method: 'S256', response_mode: 'query', state: 'md' }, { decision: 'grant', scopes: 'products:read' })
      assert.equal(back.origin + back.pathname, CALLBACK)
      assert.equal(back.hash, '', 'the answer is in the query')
      assert.equal(back.searchParams.get('iss'), issuer)
      assert.equal(back.searchParams.get('state'), 'md')
      const code = await exchange(site, client, String(back.searchParams.get('code')), p.verifier)
      assert.equal(code.status, 200)
      const first = (await code.json()) as Tokens
      const refreshed = await tokenRequest(site.base, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.clientId })
      assert.equal(refreshed.status, 200)
      const second = (await refreshed.json()) as Tokens
      assert.equal(second.token_type, 'Bearer')
      assert.equal((await mcpInitialize(site.base, second.access_token)).status, 200)
      const revoked = await post(String(meta.revocation_endpoint), { token: second.refresh_token, client_id: client.clientId })
      assert.equal(revoked.status, 200)
      assert.equal((await mcpInitialize(site.base, second.access_token)).status, 401)
    })

    await t.test('response_types_supported: code only', async () => {
      const client = await register(site.base, CALLBACK, 'Implicit Agent')
      for (const type of ['token', 'code token', 'id_token']) {
        const res = await jar.request(authorizeUrl(site.base, client, { response_type: type, scope: 'products:read', code_challenge: challenge, code_challenge_method: 'S256' }))
        const { to, query, fragment } = answer(res)
        assert.equal(to, CALLBACK)
        assert.equal(query.get('error') ?? fragment.get('error'), 'unsupported_response_type', type)
        assert.equal(query.get('code') ?? fragment.get('code'), null)
      }
      const registered = await registration(site.base, CALLBACK, 'Implicit Agent', { response_types: ['token'] })
      assert.equal(registered.status, 400)
      assert.equal(await oauthError(registered), 'invalid_client_metadata')
    })

    await t.test('response_modes_supported: query only', async () => {
      const client = await register(site.base, CALLBACK, 'Mode Agent')
      // Any other mode is refused, and the refusal itself comes back in the query.
      for (const mode of ['fragment', 'form_post', 'web_message', 'query.jwt', 'jwt']) {
        const res = await jar.request(authorizeUrl(site.base, client, { response_mode: mode, scope: 'products:read', code_challenge: challenge, code_challenge_method: 'S256', state: mode }))
        const { to, query } = answer(res)
        assert.equal(to, CALLBACK, mode)
        assert.equal(query.get('error'), 'unsupported_response_mode', mode)
        assert.equal(query.get('state'), mode)
        assert.equal(new URL(String(res.headers.get('location'))).hash, '', mode)
      }
      for (const modes of [['fragment'], ['query', 'form_post']]) {
        const registered = await registration(site.base, CALLBACK, 'Mode Agent', { response_modes: modes })
        assert.equal(registered.status, 400, modes.join())
        assert.equal(await oauthError(registered), 'invalid_client_metadata')
      }
      const queryOnly = await registration(site.base, CALLBACK, 'Mode Agent', { response_modes: ['query'] })
      assert.equal(queryOnly.status, 201)
    })

    await t.test('grant_types_supported: authorization_code and refresh_token only', async () => {
      const client = await register(site.base, CALLBACK, 'Grant Agent')
      for (const grant of ['client_credentials', 'password', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code', 'urn:ietf:params:oauth:grant-type:token-exchange']) {
        const res = await tokenRequest(site.base, { grant_type: grant, client_id: client.clientId, username: 'a', password: 'b', device_code: 'x', subject_token: 'x', subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' })
        assert.equal(res.status, 400, grant)
        assert.equal(await oauthError(res), 'unsupported_grant_type', grant)
      }
      const registered = await registration(site.base, CALLBACK, 'Grant Agent', { grant_types: ['authorization_code', 'client_credentials'] })
      assert.equal(registered.status, 400)
      assert.equal(await oauthError(registered), 'invalid_client_metadata')
    })

    await t.test('code_challenge_methods_supported: S256 only', async () => {
      assert.deepEqual(meta.code_challenge_methods_supported, ['S256'])
      const client = await register(site.base, CALLBACK, 'Plain Agent')
      const plain = answer(await jar.request(authorizeUrl(site.base, client, { scope: 'products:read', code_challenge: 'p'.repeat(43), code_challenge_method: 'plain' })))
      assert.equal(plain.query.get('error'), 'invalid_request')
    })

    await t.test('token and revocation endpoint auth methods: none, client_secret_basic, client_secret_post, and no other', async () => {
      assert.deepEqual(meta.token_endpoint_auth_methods_supported, AUTH_METHODS)
      assert.deepEqual(meta.revocation_endpoint_auth_methods_supported, AUTH_METHODS)
      // `none` is the public client of the flow above; here the two confidential ones.
      const confidential = async (method: string): Promise<HandClient & { secret: string }> => {
        const res = await registration(site.base, CALLBACK, `Secret Agent (${method})`, { token_endpoint_auth_method: method })
        assert.equal(res.status, 201, await res.clone().text())
        const body = (await res.json()) as { client_id: string; client_secret: string }
        return { clientId: body.client_id, secret: body.client_secret, redirectUri: CALLBACK }
      }
      const codeFor = async (client: HandClient) => {
        const p = pkce()
        const back = await consent(site, jar, client, { scope: 'products:read', code_challenge: p.challenge, code_challenge_method: 'S256' }, { decision: 'grant', scopes: 'products:read' })
        return { grant_type: 'authorization_code', code: String(back.searchParams.get('code')), code_verifier: p.verifier, redirect_uri: CALLBACK }
      }
      for (const [method, authenticate] of [
        ['client_secret_basic', (c: { clientId: string; secret: string }) => ({ fields: {}, headers: basic(c.clientId, c.secret) })],
        ['client_secret_post', (c: { clientId: string; secret: string }) => ({ fields: { client_id: c.clientId, client_secret: c.secret }, headers: {} })],
      ] as const) {
        const client = await confidential(method)
        const good = authenticate(client)
        const exchangeFields = await codeFor(client)
        // Without its secret, or with a wrong one, the client is not admitted (and the code is not spent).
        for (const bad of [{ fields: { client_id: client.clientId }, headers: {} }, authenticate({ ...client, secret: 'wrong' })]) {
          const refused = await post(String(meta.token_endpoint), { ...exchangeFields, ...bad.fields }, bad.headers)
          assert.equal(refused.status, 401, method)
          assert.equal(await oauthError(refused), 'invalid_client', method)
        }
        const res = await post(String(meta.token_endpoint), { ...exchangeFields, ...good.fields }, good.headers)
        assert.equal(res.status, 200, `${method}: ${await res.clone().text()}`)
        const tokens = (await res.json()) as Tokens
        assert.equal((await mcpInitialize(site.base, tokens.access_token)).status, 200, method)
        const revoked = await post(String(meta.revocation_endpoint), { token: tokens.refresh_token, ...good.fields }, good.headers)
        assert.equal(revoked.status, 200, method)
        assert.equal((await mcpInitialize(site.base, tokens.access_token)).status, 401, `${method}: the revocation took`)
      }
      for (const method of ['private_key_jwt', 'client_secret_jwt', 'tls_client_auth', 'self_signed_tls_client_auth']) {
        const res = await registration(site.base, CALLBACK, 'JWT Agent', { token_endpoint_auth_method: method, jwks: { keys: [] } })
        assert.equal(res.status, 400, method)
        assert.equal(await oauthError(res), 'invalid_client_metadata', method)
      }
    })

    await t.test('what is not offered is not served: pushed requests, DPoP binding', async () => {
      const client = await register(site.base, CALLBACK, 'Extra Agent')
      const par = await post(`${issuer}/request`, { client_id: client.clientId, response_type: 'code', redirect_uri: CALLBACK, scope: 'products:read', code_challenge: challenge, code_challenge_method: 'S256' })
      assert.equal(par.status, 404)
      // A DPoP proof is not looked at (not even checked): the token is a plain bearer token.
      const p = pkce()
      const back = await consent(site, jar, client, { scope: 'products:read', code_challenge: p.challenge, code_challenge_method: 'S256' }, { decision: 'grant', scopes: 'products:read' })
      const res = await post(String(meta.token_endpoint), { grant_type: 'authorization_code', code: String(back.searchParams.get('code')), code_verifier: p.verifier, redirect_uri: CALLBACK, client_id: client.clientId }, { dpop: 'not-a-proof' })
      assert.equal(res.status, 200, await res.clone().text())
      assert.equal(((await res.json()) as Tokens).token_type, 'Bearer')
    })
  })

  test(`${dialect}: scopes_supported follows the feature flags`, async (t) => {
    const site = await oauthSite(dialect, { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true', PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true' }, { second: false })
    t.after(() => site.close())
    const { scopes_supported: scopes } = await metadataOf(site)
    for (const x of ['control:actions:execute', 'control:approvals:request', 'addresses:read', 'addresses:read_sensitive', 'products:read']) assert.ok(scopes.includes(x), x)
    assert.deepEqual(scopes, site.a.services.scopes.enabled(site.a.services.settings).filter((x) => !x.deprecatedFor).map((x) => x.scope))
  })
}
