// The policy form names every problem in one answer: a handle that exists already (or no
// longer), the fields' own (a number that is none, an empty name) and the policy's (a
// pattern that matches no action, an unknown scope). They used to come one kind per submit.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { panelApp, signedIn } from './helpers/panel-client.js'

const errorOf = (body: string, field: string) => new RegExp(`id="error-${field}">([^<]*)</p>`).exec(body)?.[1]

test('a policy form with problems of every kind names them all at once', async (t) => {
  const app = await panelApp({ PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' })
  t.after(() => app.close())
  const s = await signedIn(app)
  const form = { handle: 'refunds', displayName: 'Refunds', actionPattern: 'order.refund', enabled: 'on', requiresApproval: 'on', riskLevel: '', requiredApprovals: '', requiredScope: '', approvalTtlMinutes: '', maxPriceChangePercent: '', maxRefundAmount: '', maxStockAdjustment: '', allowNegativeStock: '' }
  assert.equal((await s.submit('/gatehouse/cp/policies', form)).statusCode, 303)

  // A new policy under a taken handle, with an empty name, a bad number, a pattern matching
  // no action and an unknown scope.
  const bad = await s.submit('/gatehouse/cp/policies', { ...form, displayName: '', approvalTtlMinutes: 'abc', actionPattern: 'nothing.here', requiredScope: 'nope:scope' })
  assert.equal(bad.statusCode, 400)
  assert.match(bad.body, /<strong>5 fields need attention:<\/strong>/)
  assert.match(errorOf(bad.body, 'handle') ?? '', /exists already/)
  for (const field of ['displayName', 'approvalTtlMinutes', 'actionPattern', 'requiredScope']) assert.ok(errorOf(bad.body, field), field)
  // Editing one that is gone: said beside the fields' problems.
  const gone = await s.submit('/gatehouse/cp/policies', { ...form, handle: 'deleted-meanwhile', editing: '1', displayName: '' })
  assert.equal(gone.statusCode, 400)
  assert.match(errorOf(gone.body, 'handle') ?? '', /any more/)
  assert.ok(errorOf(gone.body, 'displayName'), 'the empty name too')
  assert.deepEqual((await app.services.control.policies.list()).map((p) => p.handle), ['refunds'], 'nothing written')
})

test('the simulator names a credential that no longer exists beside the other problems', async (t) => {
  const app = await panelApp({ PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' })
  t.after(() => app.close())
  const s = await signedIn(app)
  const res = await s.submit('/gatehouse/cp/policies/simulate', { actionType: 'order.refund', credentialId: 'cred_gone', payload: '{nope', approvalId: '' })
  assert.equal(res.statusCode, 400)
  assert.match(errorOf(res.body, 'credentialId') ?? '', /no longer exists/)
  assert.match(errorOf(res.body, 'payload') ?? '', /^Write the payload as a JSON object/)
})
