// Every panel route, found from the routes the app registered (so a new page is covered
// without editing this test): without a session it redirects to the login page and does
// nothing; every POST with a session but without the session's CSRF token (missing or
// wrong) is a 403 and does nothing. Only the login form, the stylesheet and the icon are public.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { get, panelApp, post, signedIn } from './helpers/panel-client.js'

const PUBLIC = new Set(['/gatehouse/cp/login', '/gatehouse/cp/assets/panel.css', '/gatehouse/cp/assets/favicon.svg'])

test('every panel page needs a login and every panel form needs the CSRF token', async (t) => {
  const env = { PLUGIN_GATEHOUSE_DEV_MODE: 'true', PLUGIN_GATEHOUSE_WEBHOOK_TEST_SINK: 'true', PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' }
  const app = await panelApp(env)
  t.after(() => app.close())
  const { credential } = await app.services.credentials.create({ label: 'victim', scopes: ['products:read'] })
  const machineToken = await app.issueToken(['products:read', 'webhooks:dlq:replay'])
  const fill = (url: string) => url.replace(':id', credential.id).replace(':action', 'delete')

  const routes = app.registeredRoutes.filter((r) => r.url.startsWith('/gatehouse/cp') && !PUBLIC.has(r.url) && r.method !== 'OPTIONS')
  const posts = routes.filter((r) => r.method === 'POST')
  assert.ok(routes.filter((r) => r.method === 'GET').length >= 6, 'the screens are registered')
  for (const must of ['/gatehouse/cp/status/probe', '/gatehouse/cp/accounts', '/gatehouse/cp/accounts/:id/delete', '/gatehouse/cp/status/sink/clear', '/gatehouse/cp/logout']) {
    assert.ok(posts.some((r) => r.url === must), `${must} is a POST route`)
  }

  for (const r of routes) {
    const url = fill(r.url)
    // A machine credential is not an admin: the panel ignores bearer tokens.
    for (const headers of [{}, { authorization: `Bearer ${machineToken}` }]) {
      const res = await app.app.inject({ method: r.method as 'GET', url, headers })
      assert.equal(res.statusCode, 303, `${r.method} ${r.url} without a session`)
      assert.match(String(res.headers.location), /^\/gatehouse\/cp\/login/, `${r.method} ${r.url} redirects to login`)
    }
  }
  // Unknown panel paths too.
  assert.equal((await get(app, '/gatehouse/cp/nothing-here')).statusCode, 303)

  const s = await signedIn(app)
  for (const r of posts) {
    const url = fill(r.url)
    const missing = await post(app, url, {}, s.cookie)
    assert.equal(missing.statusCode, 403, `POST ${r.url} without a CSRF token`)
    assert.match(missing.body, /Form expired/)
    const wrong = await post(app, url, { _csrf: 'x'.repeat(43) }, s.cookie)
    assert.equal(wrong.statusCode, 403, `POST ${r.url} with a wrong CSRF token`)
    // Another session's token is wrong for this one.
    const other = await signedIn(app)
    assert.equal((await post(app, url, { _csrf: other.csrf }, s.cookie)).statusCode, 403, `POST ${r.url} with another session's token`)
  }

  // Nothing happened: the credential is untouched, no probe ran, the session still works.
  const after = await app.services.credentials.get(credential.id)
  assert.equal(after.status, 'active')
  assert.equal(after.rotatedAt, null)
  assert.equal((await app.services.webhooks.probeLedger()).recent.length, 0)
  assert.equal((await s.page('/gatehouse/cp/status')).statusCode, 200)
  const notFound = await s.page('/gatehouse/cp/nothing-here')
  assert.equal(notFound.statusCode, 404)
  assert.match(notFound.body, /Not found/)
})
