// The router ignores trailing slashes (app.ts), so every panel path has a slash form. It must
// keep the panel's rules: the login redirect (and its `next`), the root redirect, the
// navigation mark, absolute asset and form addresses, and the CSRF check on POSTs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ADMIN_PASSWORD, ADMIN_USER, cookiePair, get, panelApp, post, setCookie, signedIn } from './helpers/panel-client.js'

test('slash forms of panel paths: login redirect with next, then the page itself', async (t) => {
  const app = await panelApp()
  t.after(() => app.close())

  const root = await get(app, '/gatehouse/cp/')
  assert.equal(root.statusCode, 303)
  assert.equal(root.headers.location, '/gatehouse/cp/login')

  const page = await get(app, '/gatehouse/cp/deliveries/')
  assert.equal(page.statusCode, 303)
  assert.equal(page.headers.location, '/gatehouse/cp/login?next=%2Fgatehouse%2Fcp%2Fdeliveries%2F')

  // The login form carries that next, and signing in lands on it.
  const form = await get(app, page.headers.location as string)
  assert.equal(form.statusCode, 200)
  assert.match(form.body, /name="next" value="\/gatehouse\/cp\/deliveries\/"/)
  const token = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? ''
  const csrfCookie = cookiePair(setCookie(form, 'gatehouse_login_csrf') ?? '')
  const signIn = await post(app, '/gatehouse/cp/login/', { _csrf: token, username: ADMIN_USER, password: ADMIN_PASSWORD, next: '/gatehouse/cp/deliveries/' }, csrfCookie)
  assert.equal(signIn.statusCode, 303)
  assert.equal(signIn.headers.location, '/gatehouse/cp/deliveries/')
  const cookie = cookiePair(setCookie(signIn, 'gatehouse_session') ?? '')

  const shown = await get(app, '/gatehouse/cp/deliveries/', cookie)
  assert.equal(shown.statusCode, 200)
  assert.match(shown.body, /<a href="\/gatehouse\/cp\/deliveries" aria-current="page">Deliveries<\/a>/)
  assert.match(shown.body, /<link rel="stylesheet" href="\/gatehouse\/cp\/assets\/panel.css">/)
  // No relative address anywhere: under a slash form it would resolve one level too deep.
  assert.deepEqual([...shown.body.matchAll(/(?:href|action|src)="([^"]*)"/g)].map((m) => m[1]).filter((u) => !u.startsWith('/') && !u.startsWith('#')), [])

  const signedInRoot = await get(app, '/gatehouse/cp/', cookie)
  assert.equal(signedInRoot.statusCode, 303)
  assert.equal(signedInRoot.headers.location, '/gatehouse/cp/status')

  const css = await get(app, '/gatehouse/cp/assets/panel.css', cookie)
  assert.equal(css.statusCode, 200)
  assert.match(String(css.headers['content-type']), /^text\/css/)
})

test('slash forms of panel paths: filters redirect to the canonical address, POSTs still need the CSRF token', async (t) => {
  const app = await panelApp()
  t.after(() => app.close())
  const s = await signedIn(app)

  const blank = await s.page('/gatehouse/cp/deliveries/?status=&eventType=&resource=product')
  assert.equal(blank.statusCode, 303)
  assert.equal(blank.headers.location, '/gatehouse/cp/deliveries?resource=product')

  const integrations = await s.page('/gatehouse/cp/integrations/')
  assert.equal(integrations.statusCode, 200)
  assert.match(integrations.body, /aria-current="page">Integrations</)

  const forged = await post(app, '/gatehouse/cp/deliveries/replay/', { status: 'failed' }, s.cookie)
  assert.equal(forged.statusCode, 403)
  assert.match(forged.body, /Form expired/)

  const replay = await s.submit('/gatehouse/cp/deliveries/replay/', { status: 'failed' })
  assert.equal(replay.statusCode, 303)
  assert.equal(replay.headers.location, '/gatehouse/cp/deliveries?status=failed')

  const unknown = await s.page('/gatehouse/cp/nothing-here/')
  assert.equal(unknown.statusCode, 404)
})
