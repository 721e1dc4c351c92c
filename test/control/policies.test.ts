// Policies: upsert (create, then replace by handle) and listing with the built-in policy;
// input rules; which policy decides (the most specific pattern; a disabled match blocks; no
// match falls back to two approvals); and simulation reports it all without side effects.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { AGENT_SCOPES, CONTROL, controlApp, type ControlApp } from './helpers/control-app.js'

const simulate = async (app: ControlApp, token: string, actionType: string, payload: Record<string, unknown>, approvalId?: string) => {
  const res = await app.post(`${CONTROL}/policy-simulate`, { actionType, payload, ...(approvalId ? { approvalId } : {}) }, token)
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data
}

for (const dialect of await testDialects()) {
  test(`${dialect}: upsert creates then replaces a policy; the list ends with the built-in policy; changes are audited`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    const created = await app.upsertPolicy({ handle: 'refunds', displayName: 'Refunds', actionPattern: 'order.refund', riskLevel: 'critical', limits: { maxRefundAmount: 10 } })
    assert.equal(created.statusCode, 200, created.body)
    assert.equal(created.json().meta.created, true)
    const p = created.json().data
    assert.deepEqual({ ...p, createdAt: undefined, updatedAt: undefined, updatedBy: undefined }, {
      handle: 'refunds', displayName: 'Refunds', actionPattern: 'order.refund', enabled: true, requiresApproval: true, riskLevel: 'critical',
      requiredApprovals: null, requiredScope: null, approvalTtlMinutes: 60, limits: { maxRefundAmount: 10 }, builtIn: false,
      createdAt: undefined, updatedAt: undefined, updatedBy: undefined,
    })
    assert.equal(p.updatedBy, 'admin:admin-token', 'written by an operator through the admin API')

    const replaced = await app.upsertPolicy({ handle: 'refunds', displayName: 'Refunds v2', actionPattern: 'order.*', requiredApprovals: 1 })
    assert.equal(replaced.json().meta.created, false)
    assert.equal(replaced.json().data.riskLevel, null, 'fields left out take their defaults again')
    assert.equal(replaced.json().data.createdAt, p.createdAt)

    const list = await app.get(`${CONTROL}/policies`, await app.token(['control:policies:read']))
    assert.deepEqual(list.json().data.map((x: { handle: string; builtIn: boolean }) => [x.handle, x.builtIn]), [['refunds', false], ['builtin-default', true]])
    assert.equal(list.json().data[1].requiredApprovals, 2)

    const audit = (await app.get(`${CONTROL}/audit?category=policy`, await app.token(['control:audit:read']))).json().data
    assert.deepEqual(audit.map((a: { action: string }) => a.action), ['create', 'update'])
    assert.equal(audit[1].metadata.before.displayName, 'Refunds')
    assert.equal(audit[1].metadata.after.actionPattern, 'order.*')
    assert.deepEqual(audit[1].entity, { type: 'policy', id: 'refunds' })
  })
}

test('policy input: unknown fields, bad values, patterns matching no action, unknown scopes and the built-in handle are 400s naming them', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const cases: [Record<string, unknown>, string][] = [
    [{ displayName: 'x', actionPattern: '*' }, 'handle'],
    [{ handle: 'a', displayName: 'x', actionPattern: '*', requiredApprovals: 3 }, 'requiredApprovals'],
    [{ handle: 'a', displayName: 'x', actionPattern: '*', riskLevel: 'extreme' }, 'riskLevel'],
    [{ handle: 'a', displayName: 'x', actionPattern: '*', limits: { maxDiscount: 5 } }, 'limits.maxDiscount'],
    [{ handle: 'a', displayName: 'x', actionPattern: 'product.delete' }, 'actionPattern'],
    [{ handle: 'a', displayName: 'x', actionPattern: '*', requiredScope: 'orders:write' }, 'requiredScope'],
    [{ handle: 'builtin-default', displayName: 'x', actionPattern: '*' }, 'handle'],
    [{ handle: 'a', displayName: 'x', actionPattern: '*', approvalTtlMinutes: 0 }, 'approvalTtlMinutes'],
  ]
  for (const [body, param] of cases) {
    const res = await app.upsertPolicy(body)
    assert.equal(res.statusCode, 400, JSON.stringify(body))
    assert.ok(res.json().error.details.some((d: { param: string }) => d.param === param), `${JSON.stringify(body)} names ${param}: ${res.body}`)
  }
  assert.equal(await app.count('control_policies'), 0)
  assert.equal(await app.controlAuditCount(), 0)
})

test('resolution: exact beats wildcard, longer literal beats shorter, a disabled match blocks, no match needs two approvals', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const agent = await app.token(AGENT_SCOPES)
  const price = { variantId: app.ids.variants, price: 21 }
  // No policy: the built-in one, two approvals, the action's own risk level.
  let sim = await simulate(app, agent, 'variant.setPrice', price)
  assert.equal(sim.policy.handle, 'builtin-default')
  assert.equal(sim.policy.builtIn, true)
  assert.equal(sim.policy.requiredApprovals, 2)
  assert.equal(sim.policy.riskLevel, 'medium')
  assert.equal(sim.decision, 'blocked')
  assert.match(sim.reasons[0], /requires approval \(2 approvals\)/)

  await app.upsertPolicy({ handle: 'all', displayName: 'Everything', actionPattern: '*', requiresApproval: false })
  await app.upsertPolicy({ handle: 'variants', displayName: 'Variants', actionPattern: 'variant.*', riskLevel: 'high' })
  await app.upsertPolicy({ handle: 'price', displayName: 'Prices', actionPattern: 'variant.setPrice', riskLevel: 'low', requiresApproval: false })
  sim = await simulate(app, agent, 'variant.setPrice', price)
  assert.equal(sim.policy.handle, 'price')
  assert.equal(sim.decision, 'execute')
  assert.equal(sim.wouldExecute, true)
  sim = await simulate(app, agent, 'variant.adjustStock', { variantId: app.ids.variants, delta: 1 })
  assert.equal(sim.policy.handle, 'variants')
  assert.equal(sim.policy.riskLevel, 'high')
  assert.equal(sim.policy.requiredApprovals, 2, 'high risk defaults to two approvals')
  sim = await simulate(app, agent, 'order.setStatus', { orderId: app.ids.orders, status: 'shipped' })
  assert.equal(sim.policy.handle, 'all')
  assert.equal(sim.decision, 'execute')

  // Disabling the most specific match blocks, even though a wider policy would let it run.
  await app.upsertPolicy({ handle: 'price', displayName: 'Prices', actionPattern: 'variant.setPrice', enabled: false, requiresApproval: false })
  sim = await simulate(app, agent, 'variant.setPrice', price)
  assert.equal(sim.decision, 'blocked')
  assert.deepEqual(sim.reasons, ['policy price is disabled and blocks variant.setPrice'])
  const ex = await app.execute(agent, { actionType: 'variant.setPrice', payload: price })
  assert.equal(ex.json().data.status, 'blocked')
  assert.equal((await app.services.store.get('variants', app.ids.variants))?.price, 20)
})

test('simulation reports scopes, payload errors, limits and approval state, and writes nothing', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  await app.upsertPolicy({ handle: 'price', displayName: 'Prices', actionPattern: 'variant.setPrice', requiredScope: 'products:read', requiredApprovals: 1, limits: { maxPriceChangePercent: 10 } })
  // Simulating reads the variant: variants:read besides control:actions:simulate.
  const onlySimulate = await app.token(['control:actions:simulate', 'variants:read'])
  const auditBefore = await app.controlAuditCount()
  const changesBefore = await app.count('change_log')

  let sim = await simulate(app, onlySimulate, 'variant.setPrice', { variantId: app.ids.variants, price: 30 })
  assert.equal(sim.decision, 'forbidden', 'execute would answer 403 without control:actions:execute')
  assert.deepEqual(sim.missingScopes, ['control:actions:execute', 'products:read', 'control:approvals:request'])
  assert.deepEqual(sim.limits, [{ name: 'maxPriceChangePercent', source: 'policy', max: 10, actual: 50, ok: false, problem: '50% exceeds the policy limit maxPriceChangePercent of 10%' }])
  assert.ok(sim.reasons.includes('policy price requires the scope products:read'))
  assert.deepEqual(sim.target, { type: 'variants', id: String(app.ids.variants) })

  sim = await simulate(app, onlySimulate, 'variant.setPrice', { variantId: 999, price: -1, extra: true })
  assert.equal(sim.decision, 'forbidden')
  assert.deepEqual(sim.payloadErrors.map((e: { param: string }) => e.param).sort(), ['payload.extra', 'payload.price'])
  // A variant that does not exist: the 404 reading it gives (simulation-access.test.ts).
  const none = await app.post(`${CONTROL}/policy-simulate`, { actionType: 'variant.setPrice', payload: { variantId: 999, price: 1 } }, onlySimulate)
  assert.equal(none.statusCode, 404, none.body)
  assert.equal(none.json().error.message, 'No variants record matches id=999')
  // A payload naming a draft (an internal family) still says when the draft does not exist.
  sim = await simulate(app, await app.token(['control:actions:simulate', 'control:actions:execute', 'entries:read']), 'entry.publishDraft', { draftId: 999 })
  assert.equal(sim.decision, 'invalid')
  assert.deepEqual(sim.payloadErrors, [{ param: 'payload.draftId', problem: 'no draft with id 999' }])

  const unknown = await app.post(`${CONTROL}/policy-simulate`, { actionType: 'variant.delete', payload: {} }, onlySimulate)
  assert.equal(unknown.statusCode, 400)
  assert.equal(unknown.json().error.details[0].param, 'actionType')

  const missing = await simulate(app, onlySimulate, 'variant.setPrice', { variantId: app.ids.variants, price: 21 }, 'apr_nope')
  assert.equal(missing.approval.usable, false)
  assert.ok(missing.reasons.includes('approval apr_nope not found'))

  assert.equal(await app.controlAuditCount(), auditBefore, 'simulation is not audited as a change')
  assert.equal(await app.count('change_log'), changesBefore)
  assert.equal(await app.count('control_executions'), 0)
  assert.equal(await app.count('control_approvals'), 0)
  assert.equal((await app.services.store.get('variants', app.ids.variants))?.price, 20)
})
