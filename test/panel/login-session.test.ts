// Login and sessions: the login form's CSRF check, a generic failure answer, the session
// cookie's attributes (HttpOnly, SameSite=Strict, Secure on HTTPS), sessions stored as
// digests with an expiry, logout, and the same session authenticating the admin API
// (reads with the cookie, changes only with the CSRF header).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { ADMIN_PASSWORD, ADMIN_USER, cookiePair, get, login, panelApp, post, setCookie, signedIn, submitLogin, type Fields } from './helpers/panel-client.js'

test('login form: CSRF value required, generic failure, then an HttpOnly SameSite=Strict session stored as a digest', async (t) => {
  const app = await panelApp()
  t.after(() => app.close())

  const first = await get(app, '/gatehouse/cp/status')
  assert.equal(first.statusCode, 303)
  assert.equal(first.headers.location, '/gatehouse/cp/login?next=%2Fgatehouse%2Fcp%2Fstatus')

  const form = await get(app, '/gatehouse/cp/login?next=/gatehouse/cp/accounts')
  assert.equal(form.statusCode, 200)
  assert.match(String(form.headers['content-type']), /^text\/html/)
  assert.match(String(form.headers['content-security-policy']), /default-src 'none'/)
  const loginCookie = setCookie(form, 'gatehouse_login_csrf') ?? ''
  assert.match(loginCookie, /; HttpOnly; SameSite=Strict/)
  const token = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? ''

  // Without the form token, or with one that is not the cookie's: 403, no session.
  const attempts: Fields[] = [{ username: ADMIN_USER, password: ADMIN_PASSWORD }, { _csrf: 'forged', username: ADMIN_USER, password: ADMIN_PASSWORD }]
  for (const fields of attempts) {
    const res = await post(app, '/gatehouse/cp/login', fields, cookiePair(loginCookie))
    assert.equal(res.statusCode, 403)
    assert.equal(setCookie(res, 'gatehouse_session'), undefined)
  }
  const noCookie = await post(app, '/gatehouse/cp/login', { _csrf: token, username: ADMIN_USER, password: ADMIN_PASSWORD })
  assert.equal(noCookie.statusCode, 403)

  // Wrong password and unknown user get the same answer.
  const wrong = await submitLogin(app, ADMIN_USER, 'not the password')
  const unknown = await submitLogin(app, 'nobody', 'not the password')
  assert.equal(wrong.statusCode, 401)
  assert.equal(unknown.statusCode, 401)
  assert.match(wrong.body, /Unknown username or wrong password/)
  assert.match(unknown.body, /Unknown username or wrong password/)
  assert.equal(setCookie(wrong, 'gatehouse_session'), undefined)

  const ok = await post(app, '/gatehouse/cp/login', { _csrf: token, username: ADMIN_USER, password: ADMIN_PASSWORD, next: '/gatehouse/cp/accounts' }, cookiePair(loginCookie))
  assert.equal(ok.statusCode, 303)
  assert.equal(ok.headers.location, '/gatehouse/cp/accounts')
  const session = setCookie(ok, 'gatehouse_session') ?? ''
  assert.match(session, /^gatehouse_session=[A-Za-z0-9_-]{43}; Path=\/gatehouse; HttpOnly; SameSite=Strict$/)
  assert.match(setCookie(ok, 'gatehouse_login_csrf') ?? '', /Max-Age=0/)

  // Only the digest of the id is stored, with an expiry.
  const id = cookiePair(session).split('=')[1]
  const rows = await app.database.db.selectFrom('panel_sessions').selectAll().execute()
  assert.equal(rows.length, 1)
  assert.equal(rows[0].id_digest, createHash('sha256').update(id).digest('hex'))
  assert.equal(rows[0].username, ADMIN_USER)
  assert.ok(Number(rows[0].expires_at) > Date.now() && Number(rows[0].expires_at) <= Date.now() + 30 * 60_000 + 1000)

  const page = await get(app, '/gatehouse/cp/accounts', cookiePair(session))
  assert.equal(page.statusCode, 200)
  assert.match(page.body, /<h1>Accounts<\/h1>/)

  // An off-site `next` is ignored.
  const evil = await submitLogin(app, ADMIN_USER, ADMIN_PASSWORD)
  assert.equal(evil.headers.location, '/gatehouse/cp/status')
  const offsite = await get(app, '/gatehouse/cp/login?next=https://evil.example/x')
  assert.match(offsite.body, /name="next" value="\/gatehouse\/cp\/status"/)
  for (const bad of ['//evil.example/x', '/gatehouse/cp/../../x', '/gatehouse/cp//evil.example', '/gatehouse/cp/x\\y', '/gatehouse/cpx', '/gatehouse/cp/a?b=<c>']) {
    const res = await get(app, `/gatehouse/cp/login?next=${encodeURIComponent(bad)}`)
    assert.match(res.body, /name="next" value="\/gatehouse\/cp\/status"/, bad)
  }
  // A filter and an admin's page (names hold `.` and `@`) survive the login.
  const filtered = await get(app, '/gatehouse/cp/deliveries?status=failed')
  assert.equal(filtered.headers.location, `/gatehouse/cp/login?next=${encodeURIComponent('/gatehouse/cp/deliveries?status=failed')}`)
  for (const good of ['/gatehouse/cp/deliveries?status=failed', '/gatehouse/cp/accounts/admins/eve@x.io', '/gatehouse/cp/status?range=week']) {
    const res = await get(app, `/gatehouse/cp/login?next=${encodeURIComponent(good)}`)
    assert.ok(res.body.includes(`name="next" value="${good}"`), good)
  }
})

test('session cookies are Secure when the base URL is https', async (t) => {
  const app = await panelApp({ PLUGIN_GATEHOUSE_BASE_URL: 'https://cp.example.test' })
  t.after(() => app.close())
  const form = await get(app, '/gatehouse/cp/login')
  assert.match(setCookie(form, 'gatehouse_login_csrf') ?? '', /; Secure/)
  const ok = await submitLogin(app, ADMIN_USER, ADMIN_PASSWORD)
  assert.match(setCookie(ok, 'gatehouse_session') ?? '', /; HttpOnly; SameSite=Strict; Secure$/)
})

test('logout and expiry end the session, in the panel and in the admin API', async (t) => {
  const app = await panelApp()
  t.after(() => app.close())
  const s = await signedIn(app)

  // The admin API accepts the session for reads; changes need the session's CSRF header.
  const list = await app.app.inject({ method: 'GET', url: '/gatehouse/admin/v1/credentials', headers: { cookie: s.cookie } })
  assert.equal(list.statusCode, 200)
  const body = JSON.stringify({ label: 'via session', scopes: ['products:read'] })
  const json = { cookie: s.cookie, 'content-type': 'application/json' }
  const noHeader = await app.app.inject({ method: 'POST', url: '/gatehouse/admin/v1/credentials', headers: json, payload: body })
  assert.equal(noHeader.statusCode, 403)
  assert.match(noHeader.json().error.message, /X-Gatehouse-Csrf/)
  const badHeader = await app.app.inject({ method: 'POST', url: '/gatehouse/admin/v1/credentials', headers: { ...json, 'x-gatehouse-csrf': 'nope' }, payload: body })
  assert.equal(badHeader.statusCode, 403)
  const created = await app.app.inject({ method: 'POST', url: '/gatehouse/admin/v1/credentials', headers: { ...json, 'x-gatehouse-csrf': s.csrf }, payload: body })
  assert.equal(created.statusCode, 201)
  assert.equal(created.json().data.label, 'via session')

  const out = await s.submit('/gatehouse/cp/logout')
  assert.equal(out.statusCode, 303)
  assert.equal(out.headers.location, '/gatehouse/cp/login')
  assert.match(setCookie(out, 'gatehouse_session') ?? '', /^gatehouse_session=; .*Max-Age=0/)
  assert.equal((await app.database.db.selectFrom('panel_sessions').selectAll().execute()).length, 0)
  assert.equal((await s.page('/gatehouse/cp/status')).statusCode, 303)
  assert.equal((await app.app.inject({ method: 'GET', url: '/gatehouse/admin/v1/credentials', headers: { cookie: s.cookie } })).statusCode, 401)

  // A session past its expiry is refused even though its row is still there.
  const again = await login(app)
  await app.database.db.updateTable('panel_sessions').set({ expires_at: Date.now() - 1 }).execute()
  const expired = await get(app, '/gatehouse/cp/accounts', again)
  assert.equal(expired.statusCode, 303)
  assert.match(String(expired.headers.location), /^\/gatehouse\/cp\/login/)
  assert.equal((await app.app.inject({ method: 'GET', url: '/gatehouse/admin/v1/credentials', headers: { cookie: again } })).statusCode, 401)
})
