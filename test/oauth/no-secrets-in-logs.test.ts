// No authorization code, access token, refresh token or PKCE verifier reaches the server's
// log, at the most verbose level, through a whole flow: registration, authorization, login,
// consent, code exchange, refresh, calls with the tokens (also on the wrong resource),
// revocation (RFC 7009) and a refused reuse of the code.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { pino } from 'pino'
import { buildApp } from '../../src/compose/app.js'
import { createAdmin } from '../../src/auth/admin-accounts.js'
import { testDatabase, testSettings } from '../helpers/test-app.js'
import { freePort } from '../helpers/free-port.js'
import { ADMIN_PASSWORD, ADMIN_USER, mcpInitialize, tokenRequest } from './helpers/oauth-apps.js'
import { authorizeUrl, csrfOf, Jar, pkce, register } from './helpers/hand-flow.js'

test('sqlite: a whole sign-in at log level trace leaves no code, token or verifier in the log', async (t) => {
  const lines: string[] = []
  const database = await testDatabase('sqlite')
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const settings = testSettings({ PLUGIN_GATEHOUSE_DATABASE_URL: database.url, PLUGIN_GATEHOUSE_BASE_URL: base, PLUGIN_GATEHOUSE_LOG_LEVEL: 'trace' })
  const app = await buildApp({ settings, database, logger: pino({ level: 'trace' }, { write: (s: string) => { lines.push(s) } }), webhookWorker: false })
  t.after(async () => { await app.close(); await database.destroy() })
  await createAdmin(database.db, ADMIN_USER, ADMIN_PASSWORD)
  await app.app.listen({ host: '127.0.0.1', port })

  const client = await register(base, 'http://127.0.0.1:9/callback')
  const { verifier, challenge } = pkce()
  const jar = new Jar()
  await jar.login(base)
  const start = await jar.follow(authorizeUrl(base, client, { scope: 'products:read', code_challenge: challenge, code_challenge_method: 'S256' }), base)
  const consented = await jar.request(start.url, { form: { _csrf: csrfOf(await start.res.text()), decision: 'grant', scopes: 'products:read' } })
  const back = new URL((await jar.follow(new URL(String(consented.headers.get('location')), base).href, base)).url)
  const code = String(back.searchParams.get('code'))
  const exchange = { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.clientId, redirect_uri: client.redirectUri }
  const tokens = (await (await tokenRequest(base, exchange)).json()) as { access_token: string; refresh_token: string }
  assert.ok(tokens.access_token && tokens.refresh_token)
  assert.equal((await mcpInitialize(base, tokens.access_token)).status, 200)
  assert.equal((await fetch(`${base}/gatehouse/v1/products`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status, 401)
  const refreshed = (await (await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId })).json()) as { access_token: string; refresh_token: string }
  assert.ok(refreshed.refresh_token)
  const revoked = await fetch(`${base}/gatehouse/oauth/token/revocation`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: refreshed.refresh_token, client_id: client.clientId }).toString() })
  assert.equal(revoked.status, 200)
  assert.equal((await mcpInitialize(base, refreshed.access_token)).status, 401, 'revoking the refresh token (RFC 7009) ends its grant')
  assert.equal((await tokenRequest(base, exchange)).status, 400, 'a code is used once')

  assert.ok(lines.length > 0, 'the log was written')
  const log = lines.join('')
  for (const [name, secret] of Object.entries({ code, verifier, access: tokens.access_token, refresh: tokens.refresh_token, access2: refreshed.access_token, refresh2: refreshed.refresh_token })) {
    assert.ok(!log.includes(secret), `the log contains the ${name}`)
  }
})
