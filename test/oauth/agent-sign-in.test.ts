// Sign-in for agents end to end, with the MCP SDK's own OAuth client and a real browser, on
// each engine with two serving processes: the SDK meets a 401, discovers the protected
// resource and the authorization server, identifies itself by a Client ID Metadata Document
// this test serves over HTTPS, and sends the browser to authorize; the operator logs in to
// the panel and grants part of what was asked, in headless Chromium; the code becomes
// tokens; tools/list shows exactly what a credential with the granted scopes sees; the
// refresh token is rotated; the admin API revokes the credential the consent created; the
// next call is refused by both processes, and the refresh token is dead. A static
// credential keeps working on the same URL throughout. Screenshots of the consent page at
// 1280 and 390 px go to test-results/oauth/, and to docs/screenshots/ only with
// GATEHOUSE_UPDATE_SCREENSHOTS=1 (a plain run left the committed ones changed every time).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { testDialects } from '../helpers/test-app.js'
import { launchChromium, noChromium } from '../helpers/browser.js'
import { listAudit } from '../../src/control/audit-log.js'
import { ADMIN_PASSWORD, ADMIN_TOKEN, ADMIN_USER, mcpInitialize, oauthSite, tokenRequest } from './helpers/oauth-apps.js'
import { callbackServer, loopbackCertificate, MemoryOAuthClient, metadataDocument, metadataServer } from './helpers/oauth-client.js'

const SHOTS = process.env.GATEHOUSE_UPDATE_SCREENSHOTS === '1' ? 'docs/screenshots' : 'test-results/oauth'
const GRANTED = ['auth:read', 'products:read', 'variants:read']

async function toolNames(url: URL, opts: ConstructorParameters<typeof StreamableHTTPClientTransport>[1]): Promise<string[]> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url, opts))
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort()
  } finally {
    await client.close()
  }
}

for (const dialect of await testDialects()) {
  test(`${dialect}: an agent signs in with the MCP SDK, the operator consents in the panel, revocation ends it on both processes`, { skip: noChromium, timeout: 120_000 }, async (t) => {
    const cert = loopbackCertificate()
    t.after(() => cert.remove())
    const callback = await callbackServer()
    t.after(() => callback.close())
    const document = metadataDocument(new MemoryOAuthClient(callback.url))
    const metadata = await metadataServer(cert, document)
    t.after(() => metadata.close())
    const site = await oauthSite(dialect, { PLUGIN_GATEHOUSE_OAUTH_METADATA_ALLOW_PRIVATE: 'true', PLUGIN_GATEHOUSE_OAUTH_METADATA_CA_FILE: cert.caFile })
    t.after(() => site.close())
    const mcpUrl = new URL(`${site.base}/gatehouse/mcp`)
    const agent = new MemoryOAuthClient(callback.url, metadata.url)

    // 1. No token: the SDK gets the 401, follows resource_metadata to the authorization server, and wants a browser.
    const bare = await mcpInitialize(site.base, '')
    assert.equal(bare.status, 401)
    assert.equal(bare.headers.get('www-authenticate'), `Bearer realm="gatehouse", resource_metadata="${site.base}/.well-known/oauth-protected-resource/gatehouse/mcp"`)
    await assert.rejects(new Client({ name: 'test-agent', version: '1.0.0' }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: agent })), UnauthorizedError)
    const authorize = agent.authorizationUrl
    assert.ok(authorize, 'the SDK asked for a browser')
    assert.equal(authorize.origin + authorize.pathname, `${site.base}/gatehouse/oauth/auth`)
    assert.equal(authorize.searchParams.get('client_id'), metadata.url, 'the client identified itself by its metadata document')
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256')
    assert.equal(authorize.searchParams.get('resource'), mcpUrl.href)
    assert.equal(authorize.searchParams.get('state'), agent.stateValue)

    // 2. The operator, in a browser: panel login first, then the consent page.
    const browser = await launchChromium()
    t.after(() => browser.close())
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (e) => problems.push(e.message))
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()) })
    await page.goto(authorize.href)
    assert.match(new URL(page.url()).pathname, /^\/gatehouse\/cp\/login$/)
    await page.fill('input[name=username]', ADMIN_USER)
    await page.fill('input[name=password]', ADMIN_PASSWORD)
    await page.click('button[type=submit]')
    await page.waitForURL(/\/gatehouse\/cp\/oauth\/consent\//)
    const consent = await page.goto(page.url())
    assert.match(String(consent?.headers()['content-security-policy']), /frame-ancestors 'none'/)
    const shown = (await page.innerText('main')).replace(/\s+/g, ' ')
    assert.match(shown, /Allow Test Agent to use Gatehouse\?/)
    assert.match(shown, new RegExp(`Sends you back to 127\\.0\\.0\\.1:${new URL(callback.url).port}`))
    assert.ok(shown.includes(`metadata document ${metadata.url}`), shown)
    assert.match(shown, /First seen \d{4}-\d\d-\d\d/)
    // Grouped as on the credential form, every requested scope ticked to begin with.
    const legends = await page.$$eval('#field-scopes legend', (els) => els.map((e) => e.textContent))
    assert.ok(legends.includes('Commerce') && legends.includes('Contract and identity'), legends.join(', '))
    const ticked = await page.evaluate(`[...document.querySelectorAll('input[name=scopes]')].filter((e) => e.checked).map((e) => e.value)`) as string[]
    assert.ok(ticked.length > GRANTED.length && GRANTED.every((x) => ticked.includes(x)))
    if (dialect === 'sqlite') {
      mkdirSync(SHOTS, { recursive: true })
      await page.screenshot({ path: `${SHOTS}/oauth-consent-1280.png`, fullPage: true })
      await page.setViewportSize({ width: 390, height: 844 })
      await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))')
      assert.ok((await page.evaluate('document.documentElement.scrollWidth')) as number <= 390, 'the consent page fits 390 px')
      await page.screenshot({ path: `${SHOTS}/oauth-consent-390.png`, fullPage: true })
      await page.setViewportSize({ width: 1280, height: 900 })
    }
    await page.evaluate(`for (const e of document.querySelectorAll('input[name=scopes]')) e.checked = ${JSON.stringify(GRANTED)}.includes(e.value)`)
    await page.fill('input[name=expiresIn]', '30d')
    const back = callback.next()
    await page.click('button[value=grant]')
    const answer = await back
    assert.equal(answer.get('state'), agent.stateValue, 'the client gets its state back')
    assert.equal(answer.get('iss'), `${site.base}/gatehouse/oauth`)
    const code = answer.get('code')
    assert.ok(code)
    assert.deepEqual(problems, [])

    // 3. Code → tokens (PKCE verifier from the SDK); a short-lived access token and a refresh token.
    await auth(agent, { serverUrl: mcpUrl, authorizationCode: code })
    const first = agent.saved
    assert.ok(first?.access_token && first.refresh_token)
    assert.equal(first.token_type.toLowerCase(), 'bearer')
    assert.ok((first.expires_in ?? 0) > 0 && (first.expires_in ?? 0) <= 600)

    // The consent became a managed credential linked to the client, with the grant's scopes and expiry.
    const [link] = await site.a.services.oauth.grants()
    assert.equal(link.clientId, metadata.url)
    const credential = await site.a.services.credentials.get(link.credentialId)
    assert.deepEqual([...credential.scopes].sort(), [...GRANTED].sort())
    assert.equal(credential.label, 'Test Agent (OAuth)')
    assert.ok(credential.expiresAt && Date.parse(credential.expiresAt) > Date.now() + 29 * 86_400_000)
    const adminList = await site.a.app.inject({ url: '/gatehouse/admin/v1/oauth/grants', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    assert.equal(adminList.statusCode, 200)
    assert.deepEqual(adminList.json().data.map((g: { credentialId: string; clientId: string }) => [g.credentialId, g.clientId]), [[credential.id, metadata.url]])

    // 4. tools/list shows exactly what a credential with the granted scopes sees, on either process.
    const staticToken = await site.a.issueToken(GRANTED)
    const expected = await toolNames(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${staticToken}` } } })
    assert.ok(expected.includes('list_products') && !expected.includes('list_orders'), expected.join(', '))
    assert.deepEqual(await toolNames(mcpUrl, { authProvider: agent }), expected)
    assert.deepEqual(await toolNames(new URL(`${site.baseB}/gatehouse/mcp`), { requestInit: { headers: { authorization: `Bearer ${first.access_token}` } } }), expected)
    // The machine API is another resource: this token is not for it.
    const elsewhere = await fetch(`${site.base}/gatehouse/v1/products`, { headers: { authorization: `Bearer ${first.access_token}` } })
    assert.equal(elsewhere.status, 401)
    assert.match(String(elsewhere.headers.get('www-authenticate')), /error="invalid_token", resource_metadata="[^"]+\/gatehouse\/v1"/)

    // The panel marks the credential as OAuth-granted and names its client.
    await page.goto(`${site.base}/gatehouse/cp/accounts/${credential.id}`)
    assert.match((await page.innerText('#oauth-grant')).replace(/\s+/g, ' '), new RegExp(`to client ${metadata.url.replace(/[.:/]/g, '\\$&')} by ${ADMIN_USER}`))

    // Narrowing and pausing the credential (admin API) hold on the very next request, on the other process too.
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }
    const narrowed = await fetch(`${site.base}/gatehouse/admin/v1/credentials/${credential.id}`, { method: 'PATCH', headers: admin, body: JSON.stringify({ scopes: ['auth:read', 'products:read'] }) })
    assert.equal(narrowed.status, 200)
    const fewer = await toolNames(new URL(`${site.baseB}/gatehouse/mcp`), { requestInit: { headers: { authorization: `Bearer ${first.access_token}` } } })
    assert.ok(fewer.includes('list_products') && !fewer.some((n) => n.includes('variant')), fewer.join(', '))
    assert.equal((await fetch(`${site.base}/gatehouse/admin/v1/credentials/${credential.id}/pause`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status, 200)
    assert.equal((await mcpInitialize(site.baseB, first.access_token)).status, 401)
    assert.equal((await fetch(`${site.base}/gatehouse/admin/v1/credentials/${credential.id}/resume`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status, 200)
    assert.equal((await mcpInitialize(site.baseB, first.access_token)).status, 200)

    // 5. Refresh: new access and refresh tokens; the old access token keeps working until it expires.
    agent.saved = { ...first, access_token: 'expired-in-the-client' }
    assert.equal(await auth(agent, { serverUrl: mcpUrl }), 'AUTHORIZED')
    const second = agent.saved
    assert.ok(second.refresh_token && second.refresh_token !== first.refresh_token, 'the refresh token rotates')
    assert.notEqual(second.access_token, first.access_token)
    assert.equal((await mcpInitialize(site.baseB, second.access_token)).status, 200)
    // Tokens and codes are stored only as digests.
    const stored = JSON.stringify(await site.a.services.database.db.selectFrom('oauth_models').selectAll().execute())
    for (const secret of [code, first.access_token, second.access_token, second.refresh_token]) assert.ok(!stored.includes(secret))

    // 6. The operator revokes the credential in the admin API: both processes refuse at once; the refresh token is dead.
    const revoked = await fetch(`${site.base}/gatehouse/admin/v1/credentials/${credential.id}/revoke`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    assert.equal(revoked.status, 200)
    for (const origin of [site.base, site.baseB]) {
      const after = await mcpInitialize(origin, second.access_token)
      assert.equal(after.status, 401, origin)
      assert.match(String(after.headers.get('www-authenticate')), /resource_metadata=/)
    }
    const refresh = await tokenRequest(site.base, { grant_type: 'refresh_token', refresh_token: second.refresh_token, client_id: metadata.url, resource: mcpUrl.href })
    assert.equal(refresh.status, 400)
    assert.equal((await refresh.json() as { error: string }).error, 'invalid_grant')

    // A static credential still works on the same URL.
    assert.equal((await mcpInitialize(site.base, staticToken)).status, 200)

    // 7. The audit log has the grant, the tokens issued and the revocation, and no token anywhere in it.
    const { items } = await listAudit(site.a.services.database.db, { category: 'oauth', limit: 100 })
    const actions = items.map((r) => r.action)
    assert.ok(actions.includes('grant') && actions.filter((a) => a === 'token').length >= 2 && actions.includes('revoke'), actions.join(', '))
    const text = JSON.stringify(items)
    for (const secret of [code, first.access_token, first.refresh_token, second.access_token, second.refresh_token]) assert.ok(!text.includes(secret))
  })
}
