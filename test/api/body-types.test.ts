// JSON bodies are validated as typed: null, "true", "7" and "" are not the boolean, number
// or null a schema asks for. Coercion let `{"requiresApproval": null}` become `false` on a
// policy upsert, after which actions ran with no approval. Every mistyped field is named;
// query strings keep their documented text spellings (limit=10, lowStock=yes).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { ADMIN_TOKEN, CONTROL, controlApp } from '../control/helpers/control-app.js'

const named = (res: { json(): { error: { details?: { param: string }[] } } }) => (res.json().error.details ?? []).map((d) => d.param).sort()

for (const dialect of await testDialects()) {
  test(`${dialect}: a policy upsert with null, "true", "7" or "" where the schema wants another type is a 400 naming every such field, and stores nothing`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    const writer = await app.token(['control:policies:write'])
    const base = { handle: 'orders', displayName: 'Orders', actionPattern: 'order.setStatus' }

    // The attack: null read as false would have switched approval off.
    let res = await app.post(`${CONTROL}/policies/upsert`, { ...base, requiresApproval: null }, writer)
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().error.code, 'INVALID_REQUEST')
    assert.deepEqual(named(res), ['requiresApproval'])

    res = await app.post(`${CONTROL}/policies/upsert`, {
      ...base, requiresApproval: 'true', enabled: null, approvalTtlMinutes: '7', requiredApprovals: '2', riskLevel: '', requiredScope: 12,
      limits: { maxRefundAmount: '100', allowNegativeStock: 'false' },
    }, writer)
    assert.equal(res.statusCode, 400, res.body)
    assert.deepEqual(named(res), ['approvalTtlMinutes', 'enabled', 'limits.allowNegativeStock', 'limits.maxRefundAmount', 'requiredApprovals', 'requiredScope', 'requiresApproval', 'riskLevel'])
    assert.match(res.json().error.message, /requiresApproval/)
    assert.equal(await app.count('control_policies'), 0, 'nothing stored')

    // The same through the admin API (operators' writes are validated alike).
    const admin = await app.app.inject({ method: 'POST', url: '/gatehouse/admin/v1/control/policies/upsert', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ ...base, requiresApproval: null, enabled: 'true' }) })
    assert.equal(admin.statusCode, 400, admin.body)
    assert.deepEqual(JSON.parse(admin.body).error.details.map((d: { param: string }) => d.param).sort(), ['enabled', 'requiresApproval'])
    assert.equal(await app.count('control_policies'), 0)

    // With the right types the same upsert is accepted (by an operator; relaxing needs one).
    const ok = await app.upsertPolicy({ ...base, requiresApproval: true, enabled: true, approvalTtlMinutes: 7, requiredApprovals: 2, riskLevel: null })
    assert.equal(ok.statusCode, 200, ok.body)
    assert.equal(ok.json().data.requiredApprovals, 2)
  })
}

test('control, checkpoint, DLQ replay and admin bodies refuse strings for numbers and numbers for strings; query strings still coerce', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const all = await app.token(['control:approvals:request', 'control:approvals:decide', 'control:actions:execute', 'control:actions:simulate',
    'syncstate:write', 'webhooks:dlq:replay', 'products:read', 'variants:read'])

  const cases: [string, unknown, string[]][] = [
    ['/gatehouse/v1/webhooks/dlq/replay', { id: '7' }, ['id']],
    ['/gatehouse/v1/webhooks/dlq/replay', { mode: 'all', limit: '5' }, ['limit']],
    ['/gatehouse/v1/sync-state/checkpoint', { resourceType: 'products', integrationKey: 123, cursor: 5, metadata: 'x' }, ['cursor', 'integrationKey', 'metadata']],
    [`${CONTROL}/approvals/decide`, { approvalId: 17, decision: 'approve', reason: true }, ['approvalId', 'reason']],
    [`${CONTROL}/policy-simulate`, { actionType: 'variant.setPrice', payload: { variantId: app.ids.variants, price: 21 }, approvalId: 5 }, ['approvalId']],
    [`${CONTROL}/approvals/request`, { actionType: 'variant.setPrice', payload: { variantId: app.ids.variants, price: 21 }, metadata: { source: 1, agentId: 'a', traceId: null } }, ['metadata.source', 'metadata.traceId']],
  ]
  for (const [url, body, params] of cases) {
    const res = await app.post(url, body, all, url.endsWith('/execute') ? { 'idempotency-key': 'k1' } : {})
    assert.equal(res.statusCode, 400, `${url} ${JSON.stringify(body)}: ${res.body}`)
    assert.deepEqual(named(res), params, `${url} ${JSON.stringify(body)}`)
  }
  // Action payloads are checked by their own schema, strictly too.
  const sim = await app.post(`${CONTROL}/policy-simulate`, { actionType: 'variant.setPrice', payload: { variantId: String(app.ids.variants), price: '21' } }, all)
  assert.equal(sim.statusCode, 200, sim.body)
  assert.deepEqual(sim.json().data.payloadErrors.map((e: { param: string }) => e.param).sort(), ['payload.price', 'payload.variantId'])

  const adminDecide = await app.app.inject({ method: 'POST', url: '/gatehouse/admin/v1/control/approvals/apr_x/decide', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ decision: 'approve', reason: 42 }) })
  assert.equal(adminDecide.statusCode, 400, adminDecide.body)
  assert.deepEqual(JSON.parse(adminDecide.body).error.details.map((d: { param: string }) => d.param), ['reason'])
  const adminReplay = await app.app.inject({ method: 'POST', url: '/gatehouse/admin/v1/webhooks/dlq/replay', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ id: '7' }) })
  assert.equal(adminReplay.statusCode, 400, adminReplay.body)
  assert.deepEqual(JSON.parse(adminReplay.body).error.details.map((d: { param: string }) => d.param), ['id'])

  // Query strings are text: their documented spellings still work.
  const list = await app.get('/gatehouse/v1/products?limit=1&lowStock=yes&lowStockThreshold=100', all)
  assert.equal(list.statusCode, 200, list.body)
  assert.equal(list.json().data.length, 1)
})
