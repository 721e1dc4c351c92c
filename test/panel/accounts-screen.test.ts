// The Accounts screen end to end over HTTP: create with scopes, expiry, allowlist,
// interests and boundaries (stored exactly as the admin API would store them); the token
// shown once on the result page and never again; rotate, pause, resume, revoke and delete
// through confirmation pages; form errors re-shown with the values; labels escaped.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { panelApp, signedIn } from './helpers/panel-client.js'

const tokenIn = (body: string) => /id="new-token"><code>(gth_[A-Za-z0-9_-]+)<\/code>/.exec(body)?.[1]

test('create shows the token once; rotate, pause, resume, revoke and delete act on the credential', async (t) => {
  const app = await panelApp()
  t.after(() => app.close())
  const s = await signedIn(app)

  const form = await s.page('/gatehouse/cp/accounts/new')
  assert.equal(form.statusCode, 200)
  for (const legend of ['Contract and identity', 'Commerce', 'Content', 'Webhook operations']) assert.match(form.body, new RegExp(`<legend>${legend}</legend>`))
  assert.doesNotMatch(form.body, /control:approvals:decide/, 'flag-gated scopes are hidden while the flag is off')
  assert.match(form.body, /name="interests" value="order:deleted"/)

  const label = '<img src=x onerror=alert(1)> "sync" & co'
  const created = await s.submit('/gatehouse/cp/accounts', {
    label, scopes: ['products:read', 'orders:read'], expiresIn: '30d', ipAllowlist: '10.0.0.0/8\n192.0.2.1',
    interests: ['product:created', 'product:updated', 'order:deleted'], sections: 'blog, news', entryIds: '4 5', productIds: '9',
  })
  // The answer redirects to the page that shows the token, so a reload of it sends nothing again.
  assert.equal(created.statusCode, 303)
  assert.equal(created.headers.location, '/gatehouse/cp/accounts/issued')
  assert.equal(created.body.includes('gth_'), false, 'no token in the redirect')
  assert.doesNotMatch(String(created.headers['set-cookie']), /gth_/, 'the kept token is encrypted')
  const shown = await s.follow(created)
  assert.equal(shown.statusCode, 200)
  assert.match(String(shown.headers['cache-control']), /no-store/)
  const token = tokenIn(shown.body)
  assert.ok(token, 'the token is on the result page')
  assert.equal(shown.body.includes('<img src=x'), false, 'the label is escaped')
  assert.match(shown.body, /&lt;img src=x onerror=alert\(1\)&gt; &quot;sync&quot; &amp; co/)
  // A reload: the kept token was cleared with the page; nothing is made again.
  const reloaded = await s.page('/gatehouse/cp/accounts/issued')
  assert.equal(reloaded.statusCode, 200)
  assert.equal(tokenIn(reloaded.body), undefined)
  assert.match(reloaded.body, /Token not shown again/)
  assert.equal((await app.services.credentials.list()).filter((x) => x.source === 'managed').length, 1, 'one credential')

  const [c] = (await app.services.credentials.list()).filter((x) => x.source === 'managed')
  assert.equal(c.label, label)
  assert.deepEqual(c.scopes, ['products:read', 'orders:read'])
  assert.deepEqual(c.ipAllowlist, ['10.0.0.0/8', '192.0.2.1'])
  assert.deepEqual(c.webhookInterests, [{ resourceType: 'product', actions: ['created', 'updated'] }, { resourceType: 'order', actions: ['deleted'] }])
  assert.deepEqual(c.boundaries, { sections: ['blog', 'news'], entryIds: [4, 5], productIds: [9] })
  const days = (Date.parse(c.expiresAt ?? '') - Date.now()) / 86_400_000
  assert.ok(days > 29.9 && days <= 30, `expires in 30 days (${days})`)
  // The token works on the machine API (from an allowed address).
  const whoami = await app.app.inject({ url: '/gatehouse/v1/products', headers: { authorization: `Bearer ${token}` }, remoteAddress: '10.1.2.3' })
  assert.equal(whoami.statusCode, 200)

  // Never shown again: list and detail carry only the hint.
  const list = await s.page('/gatehouse/cp/accounts')
  const detail = await s.page(`/gatehouse/cp/accounts/${c.id}`)
  for (const page of [list, detail]) {
    assert.equal(page.statusCode, 200)
    assert.equal(page.body.includes(token ?? '-'), false)
    assert.equal(page.body.includes('<img src=x'), false)
  }
  assert.match(detail.body, new RegExp(c.tokenHint))
  assert.match(detail.body, /product: created, updated; order: deleted/)

  // Rotate via its confirmation page: a new token once, the old one stops working.
  const confirm = await s.page(`/gatehouse/cp/accounts/${c.id}/confirm/rotate`)
  assert.match(confirm.body, new RegExp(`action="/gatehouse/cp/accounts/${c.id}/rotate"`))
  const rotated = await s.follow(await s.submit(`/gatehouse/cp/accounts/${c.id}/rotate`))
  const newToken = tokenIn(rotated.body)
  assert.ok(newToken && newToken !== token)
  const bearer = (tok: string | undefined) => app.app.inject({ url: '/gatehouse/v1/products', headers: { authorization: `Bearer ${tok}` }, remoteAddress: '10.1.2.3' })
  assert.equal((await bearer(token)).statusCode, 401)
  assert.equal((await bearer(newToken)).statusCode, 200)
  assert.equal((await s.page(`/gatehouse/cp/accounts/${c.id}`)).body.includes(newToken ?? '-'), false)

  // Pause and resume redirect back with a message shown once.
  const paused = await s.submit(`/gatehouse/cp/accounts/${c.id}/pause`)
  assert.equal(paused.statusCode, 303)
  assert.equal(paused.headers.location, `/gatehouse/cp/accounts/${c.id}`)
  assert.equal((await app.services.credentials.get(c.id)).status, 'paused')
  assert.match((await s.page(`/gatehouse/cp/accounts/${c.id}`)).body, /now paused\./)
  assert.doesNotMatch((await s.page(`/gatehouse/cp/accounts/${c.id}`)).body, /now paused\./)
  await s.submit(`/gatehouse/cp/accounts/${c.id}/resume`)
  assert.equal((await app.services.credentials.get(c.id)).status, 'active')

  await s.submit(`/gatehouse/cp/accounts/${c.id}/revoke`)
  assert.equal((await app.services.credentials.get(c.id)).status, 'revoked')
  // A revoked credential cannot be resumed: the service's CONFLICT is shown as a page, not JSON.
  const resume = await s.submit(`/gatehouse/cp/accounts/${c.id}/resume`)
  assert.equal(resume.statusCode, 409)
  assert.match(String(resume.headers['content-type']), /^text\/html/)
  assert.match(resume.body, /cannot be resumed/)

  assert.match((await s.page(`/gatehouse/cp/accounts/${c.id}/confirm/delete`)).body, /cannot be undone/)
  const deleted = await s.submit(`/gatehouse/cp/accounts/${c.id}/delete`)
  assert.equal(deleted.headers.location, '/gatehouse/cp/accounts')
  assert.equal((await app.services.credentials.list()).some((x) => x.id === c.id), false)
  assert.equal((await s.page(`/gatehouse/cp/accounts/${c.id}`)).statusCode, 404)
})

test('invalid create forms are shown again with each problem in words next to its field, and the values kept', async (t) => {
  const app = await panelApp()
  t.after(() => app.close())
  const s = await signedIn(app)
  const errorOf = (body: string, field: string) => new RegExp(`id="error-${field}">([^<]*)</p>`).exec(body)?.[1]
  const res = await s.submit('/gatehouse/cp/accounts', { label: 'bad one', scopes: ['products:read'], ipAllowlist: 'not-a-cidr', entryIds: '7, x' })
  assert.equal(res.statusCode, 400)
  assert.equal(errorOf(res.body, 'entryIds'), 'Write entry ids as whole numbers separated by commas or spaces (&quot;x&quot; is not one).')
  // In the same answer as the field's own problem: the service's check of another field.
  assert.match(errorOf(res.body, 'ipAllowlist') ?? '', /^&quot;not-a-cidr&quot; is not an address or range/)
  assert.match(res.body, /name="entryIds" value="7, x" placeholder="12, 15" aria-invalid="true" aria-describedby="error-entryIds"/)
  assert.match(res.body, /value="bad one"/)
  assert.match(res.body, /value="products:read" checked/)
  const ip = await s.submit('/gatehouse/cp/accounts', { label: 'bad ip', scopes: ['products:read'], ipAllowlist: 'not-a-cidr' })
  assert.equal(ip.statusCode, 400)
  assert.match(errorOf(ip.body, 'ipAllowlist') ?? '', /^&quot;not-a-cidr&quot; is not an address or range\. Write addresses such as 192\.0\.2\.1/)
  const none = await s.submit('/gatehouse/cp/accounts', { label: '', expiresIn: 'soon' })
  assert.equal(none.statusCode, 400)
  assert.match(none.body, /3 fields need attention:<\/strong>\s*<a href="#field-label">Label<\/a>/)
  assert.match(errorOf(none.body, 'label') ?? '', /^Give the credential a label/)
  assert.equal(errorOf(none.body, 'scopes'), 'Choose at least one scope: the credential can do nothing without one.')
  assert.match(errorOf(none.body, 'expiresIn') ?? '', /^Write the expiry as a number and a unit: 30d/)
  // The schema's problems (an empty label) and the service's (a bad range, an unknown scope,
  // a zero duration) come in one answer: nothing waits for a second submit.
  const all = await s.submit('/gatehouse/cp/accounts', { label: '', scopes: ['products:read', 'nope:scope'], ipAllowlist: 'not-a-cidr', expiresIn: '0d' })
  assert.equal(all.statusCode, 400)
  assert.match(errorOf(all.body, 'label') ?? '', /^Give the credential a label/)
  assert.match(errorOf(all.body, 'ipAllowlist') ?? '', /^&quot;not-a-cidr&quot; is not an address or range/)
  assert.match(errorOf(all.body, 'scopes') ?? '', /nope:scope/)
  assert.equal(errorOf(all.body, 'expiresIn'), 'An expiry must be more than zero: 30d (days), 12h (hours) or 90m (minutes). Leave it empty for no expiry.')
  // Validator wording never reaches the page.
  for (const body of [res.body, ip.body, none.body, all.body]) assert.doesNotMatch(body, /Expected|invalid CIDR|positive integer id/)
  assert.equal((await app.services.credentials.list()).length, 0)

  // The panel's form parser lives only in the panel: the machine and admin APIs still refuse forms.
  const machine = await app.app.inject({ method: 'POST', url: '/gatehouse/v1/sync-state/checkpoint', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${await app.issueToken(['syncstate:write'])}` }, payload: 'resourceType=products' })
  assert.equal(machine.statusCode, 415)
  const admin = await app.app.inject({ method: 'POST', url: '/gatehouse/admin/v1/credentials', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: s.cookie, 'x-gatehouse-csrf': s.csrf }, payload: 'label=x&scopes=products:read' })
  assert.equal(admin.statusCode, 415)
})
