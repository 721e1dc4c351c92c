// Approvals and Audit screens (control plane on): a pending dual approval with its
// progress, decided by two different panel admins (never twice by the same one), history,
// credential changes audited with the panel admin as actor, and the audit list with its
// chain verification, which turns red when a record is edited.
// Without the experimental flag neither screen exists.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createAdmin } from '../../src/auth/admin-accounts.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { ADMIN_PASSWORD, csrfOf, get, login, panelApp, post, signedIn } from './helpers/panel-client.js'

const provenance = { source: 'panel-test', agentId: 'agent-7', traceId: 'trace-7' }

test('approvals: dual approval by two admins from the panel, history and a verified audit chain', async (t) => {
  const app = await panelApp({ PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' })
  t.after(() => app.close())
  const { ids } = await seedSmallCatalog(app.services.store)
  const agent = await app.issueToken(['control:approvals:request', 'control:approvals:read', 'orders:read'])
  const requested = await app.post('/gatehouse/v1/control/approvals/request',
    { actionType: 'order.refund', payload: { orderId: ids.orders, amount: 5, reason: '<b>dented</b>' }, metadata: provenance, reason: 'customer <script>' }, agent)
  assert.equal(requested.statusCode, 200, requested.body)
  const approval = requested.json().data

  const first = await signedIn(app)
  const page = await first.page('/gatehouse/cp/approvals')
  assert.equal(page.statusCode, 200)
  assert.match(page.body, /<a href="\/gatehouse\/cp\/approvals" aria-current="page">Approvals<\/a>/)
  assert.match(page.body, new RegExp(`id="approval-${approval.id}"`))
  assert.match(page.body, /<strong class="progress">0 of 2 approvals<\/strong>/)
  assert.match(page.body, /customer &lt;script&gt;/)
  assert.match(page.body, /&lt;b&gt;dented&lt;\/b&gt;/)

  // A reason is required (the admin API's schema), and nothing is decided without one.
  // Spaces pass the browser's `required`: said in words, back on the approval's own page.
  for (const reason of ['', '   ']) {
    const blank = await first.submit(`/gatehouse/cp/approvals/${approval.id}/decide`, { decision: 'approve', reason })
    assert.equal(blank.headers.location, `/gatehouse/cp/approvals/${approval.id}`)
    assert.match((await first.page(`/gatehouse/cp/approvals/${approval.id}`)).body, /class="flash error"[^>]*>Give a reason: it is kept with your decision in the audit log\./)
  }
  const ok1 = await first.submit(`/gatehouse/cp/approvals/${approval.id}/decide`, { decision: 'approve', reason: 'refund is fair' })
  assert.equal(ok1.statusCode, 303)
  const after1 = await first.page('/gatehouse/cp/approvals')
  assert.match(after1.body, /Approved order\.refund: 1 of 2 approvals, now pending\./)
  assert.match(after1.body, /<strong class="progress">1 of 2 approvals<\/strong>/)
  // The same admin cannot give the second approval.
  await first.submit(`/gatehouse/cp/approvals/${approval.id}/decide`, { decision: 'approve', reason: 'again' })
  assert.match((await first.page(`/gatehouse/cp/approvals/${approval.id}`)).body, /the second approval must come from a different decider/)

  await createAdmin(app.services.database.db, 'second-admin', ADMIN_PASSWORD)
  const cookie2 = await login(app, 'second-admin')
  const csrf2 = csrfOf((await get(app, '/gatehouse/cp/approvals', cookie2)).body)
  await post(app, `/gatehouse/cp/approvals/${approval.id}/decide`, { _csrf: csrf2, decision: 'approve', reason: 'agreed' }, cookie2)
  const stored = await app.services.control.approvals.get(approval.id)
  assert.equal(stored?.status, 'approved')
  assert.deepEqual(stored?.decisions.map((d) => d.decider), [{ type: 'admin', id: 'ops-admin' }, { type: 'admin', id: 'second-admin' }])
  const history = (await get(app, '/gatehouse/cp/approvals', cookie2)).body
  assert.match(history, /No approval is waiting for a decision/)
  assert.match(history, /<span class="badge approved">approved<\/span><\/div><\/td>\s*<td data-label="Approvals"><div>2 of 2<\/div><\/td>/)

  // Credential changes made in the panel are audited with the admin as actor, as through the admin API.
  assert.equal((await first.submit('/gatehouse/cp/accounts', { label: 'audited', scopes: ['products:read'] })).statusCode, 303)
  const credentialRecords = await app.database.db.selectFrom('control_audit').select(['action', 'actor_type', 'actor_id']).where('category', '=', 'credential').orderBy('id', 'desc').limit(1).execute()
  assert.deepEqual(credentialRecords.map((r) => [r.action, r.actor_type, r.actor_id]), [['create', 'admin', 'ops-admin']])

  // Audit: newest first, verified; an edited record breaks the chain and the page says so.
  const audit = await first.page('/gatehouse/cp/audit')
  assert.equal(audit.statusCode, 200)
  assert.match(audit.body, /Chain verified: \d+ records?,/)
  assert.match(audit.body, /Approved order\.refund \(2 of 2 approvals; now approved\)/)
  assert.ok(audit.body.indexOf('now approved') < audit.body.indexOf('Requested approval of order.refund'), 'newest first')
  // A bad query parameter is a 400 page naming it, as on the other screens.
  for (const [query, param] of [['from=abc', 'from'], ['from=-5', 'from'], ['foo=1', 'foo']]) {
    const bad = await first.page(`/gatehouse/cp/audit?${query}`)
    assert.equal(bad.statusCode, 400, query)
    assert.match(bad.body, new RegExp(param), query)
  }
  assert.equal((await first.page('/gatehouse/cp/audit?from=0')).statusCode, 200)
  await app.database.db.updateTable('control_audit').set({ summary: 'nothing happened' }).where('id', '=', 1).execute()
  assert.match((await first.page('/gatehouse/cp/audit')).body, /Chain broken at record 1: the record does not match its hash \(edited\)/)
})

test('without the experimental flag there are no Approvals or Audit screens', async (t) => {
  const app = await panelApp()
  t.after(() => app.close())
  const s = await signedIn(app)
  assert.doesNotMatch((await s.page('/gatehouse/cp/status')).body, /\/gatehouse\/cp\/approvals/)
  assert.equal((await s.page('/gatehouse/cp/approvals')).statusCode, 404)
  assert.equal((await s.page('/gatehouse/cp/audit')).statusCode, 404)
})
