// The operator console's reads on the admin API: each integration's last 24 hours (traffic,
// refusals), sync checkpoints with live lag, deliveries routed to it and lifecycle; the
// incident list as the monitors last left it. The panel's Integrations screen shows the
// same numbers, and its query parameters are checked like the APIs' (a 400 naming them).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'
import { signedIn, panelApp } from '../panel/helpers/panel-client.js'
import { until } from '../helpers/until.js'

const ADMIN = 'integrations-admin-token-0123456789'


test('integrations and incidents on the admin API; the Integrations screen shows the same', async (t) => {
  const app = await panelApp({ PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN, PLUGIN_GATEHOUSE_INCIDENT_WINDOW_SECONDS: '4', PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '7' })
  t.after(() => app.close())
  const { credential, token } = await app.services.credentials.create({ label: 'Catalog sync', scopes: ['products:read', 'changes:read', 'syncstate:write'], expiresAt: new Date(Date.now() + 3 * 86_400_000).toISOString() })
  assert.equal((await app.post('/gatehouse/v1/sync-state/checkpoint', { resourceType: 'products' }, token)).statusCode, 200)
  await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
  await app.services.store.create('products', { type: 'mug', title: 'Cup', slug: 'cup' })
  assert.equal((await app.get('/gatehouse/v1/products', token)).statusCode, 200)
  assert.equal((await app.get('/gatehouse/v1/orders', token)).statusCode, 403)
  for (let i = 0; i < 4; i++) await app.get('/gatehouse/v1/products', token)
  assert.equal((await app.get('/gatehouse/v1/products', token)).statusCode, 429)

  const list = await app.get('/gatehouse/admin/v1/integrations', ADMIN)
  assert.equal(list.statusCode, 200)
  const row = list.json().data.find((r: { credential: { id: string } }) => r.credential.id === credential.id)
  assert.deepEqual([row.traffic.requests, row.traffic.clientErrors, row.traffic.scopeDenials, row.traffic.rateLimited], [8, 2, 1, 1])
  assert.deepEqual(row.lifecycle.findings, ['expiring_soon'])

  const one = (await app.get(`/gatehouse/admin/v1/integrations/${credential.id}`, ADMIN)).json().data
  assert.equal(one.traffic.requests, 8)
  assert.equal(one.series.points.length, 96)
  assert.deepEqual(one.checkpoints.map((c: { resourceType: string; pendingChanges: number }) => [c.resourceType, c.pendingChanges]), [['products', 2]])
  assert.deepEqual(one.deliveriesMatched, { last24Hours: 0, last7Days: 0 })
  assert.equal((await app.get('/gatehouse/admin/v1/integrations/cred_nobody', ADMIN)).statusCode, 404)
  assert.equal((await app.get('/gatehouse/admin/v1/integrations/%3Cx%3E', ADMIN)).statusCode, 400)
  assert.equal((await app.get('/gatehouse/admin/v1/integrations')).statusCode, 401)

  // The panel shows the same numbers.
  const s = await signedIn(app)
  const page = await s.page(`/gatehouse/cp/integrations/${credential.id}`)
  assert.match(page.body, /<dd id="scope-denials">1<\/dd>/)
  assert.match(page.body, /<dd id="rate-limited">1<\/dd>/)
  assert.match(page.body, /<li>Expires within 14 days<\/li>/)
  assert.match((await s.page('/gatehouse/cp/integrations')).body, /Catalog sync/)
  const bad = await s.page('/gatehouse/cp/integrations?risk=maybe')
  assert.equal(bad.statusCode, 400)
  assert.match(bad.body, /<code>risk<\/code>: must be high/)
  const badRange = await s.page('/gatehouse/cp/status?range=month')
  assert.equal(badRange.statusCode, 400)
  assert.match(badRange.body, /<code>range<\/code>: must be one of hour, day, week/)

  // Bad tokens open an incident; the monitors' timer records it, and the admin API lists it.
  for (let i = 0; i < 12; i++) await app.get('/gatehouse/v1/products', `gth_wrong${i}`)
  await until(async () => (await app.get('/gatehouse/admin/v1/incidents?status=open', ADMIN)).json().data.some((i: { category: string }) => i.category === 'auth_failures'), 'an open auth_failures incident')
  const incident = (await app.get('/gatehouse/admin/v1/incidents?status=open', ADMIN)).json().data.find((i: { category: string }) => i.category === 'auth_failures')
  assert.equal(incident.severity, 'warn')
  assert.match(incident.recommendedAction, /lifecycle/)
  const badIncidents = await app.get('/gatehouse/admin/v1/incidents?status=sometimes', ADMIN)
  assert.equal(badIncidents.statusCode, 400)
})

test('the navigation is the screens registered, in order; control-plane screens only with the flag', async (t) => {
  const nav = (body: string) => [...(/<nav aria-label="Screens">(.*?)<\/nav>/s.exec(body)?.[1] ?? '').matchAll(/>([^<]+)<\/a>/g)].map((m) => m[1])
  const off = await panelApp()
  t.after(() => off.close())
  assert.deepEqual(nav((await (await signedIn(off)).page('/gatehouse/cp/status')).body), ['Status', 'Integrations', 'Deliveries', 'Incidents', 'Jobs', 'Accounts', 'Settings'])
  assert.equal((await (await signedIn(off)).page('/gatehouse/cp/policies')).statusCode, 404)
  const on = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' } })
  t.after(() => on.close())
  const { createAdmin } = await import('../../src/auth/admin-accounts.js')
  await createAdmin(on.services.database.db, 'ops-admin', 'correct horse battery staple')
  const s = await signedIn(on)
  const deliveries = (await s.page('/gatehouse/cp/deliveries/replay')).body
  assert.deepEqual(nav(deliveries), ['Status', 'Integrations', 'Deliveries', 'Incidents', 'Jobs', 'Accounts', 'Approvals', 'Policies', 'Audit', 'Settings'])
  assert.match(deliveries, /<a href="\/gatehouse\/cp\/deliveries" aria-current="page">Deliveries<\/a>/, 'a page under a screen marks that screen')
})
