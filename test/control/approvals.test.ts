// Approvals: the request's required fields; pending → approved with two distinct deciders;
// a requester never decides their own; one decider cannot give both approvals; rejected and
// decided approvals cannot be decided again; requesters see only their own; control-panel
// admins decide through the admin API; refusals and decisions are audited.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { ADMIN_TOKEN, AGENT_SCOPES, CONTROL, DECIDER_SCOPES, controlApp, provenance } from './helpers/control-app.js'

test('a request without actionType, payload, metadata.source, metadata.agentId or metadata.traceId is a 400 naming each', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const agent = await app.token(AGENT_SCOPES)
  const res = await app.post(`${CONTROL}/approvals/request`, {}, agent)
  assert.equal(res.statusCode, 400)
  assert.deepEqual(res.json().error.details.map((d: { param: string }) => d.param).sort(),
    ['actionType', 'metadata.agentId', 'metadata.source', 'metadata.traceId', 'payload'])
  const partial = await app.post(`${CONTROL}/approvals/request`, { actionType: 'order.setStatus', payload: { orderId: app.ids.orders, status: 'shipped' }, metadata: { source: 's', traceId: '' } }, agent)
  assert.deepEqual(partial.json().error.details.map((d: { param: string }) => d.param).sort(), ['metadata.agentId', 'metadata.traceId'])
  const badPayload = await app.post(`${CONTROL}/approvals/request`, { actionType: 'order.setStatus', payload: { orderId: 999999 }, metadata: provenance }, agent)
  assert.deepEqual(badPayload.json().error.details.map((d: { param: string }) => d.param).sort(), ['payload.status'])
  // Asking reads the record named as the caller first (simulation-access.test.ts): a missing one is the read's 404.
  const noOrder = await app.request(agent, 'order.setStatus', { orderId: 999999, status: 'shipped' })
  assert.deepEqual([noOrder.statusCode, noOrder.json().error.message], [404, 'No orders record matches id=999999'])
  assert.equal(await app.count('control_approvals'), 0)
})

for (const dialect of await testDialects()) {
  test(`${dialect}: dual approval needs two distinct deciders other than the requester, then execution consumes it once`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    const agent = await app.token(AGENT_SCOPES)
    const agentId = (await app.services.credentials.list()).at(-1)?.id
    const d1 = await app.token(DECIDER_SCOPES)
    const d2 = await app.token(DECIDER_SCOPES)
    const selfDecider = await app.token([...AGENT_SCOPES, ...DECIDER_SCOPES])
    const payload = { orderId: app.ids.orders, amount: 12.5, reason: 'damaged' }

    const req = await app.request(agent, 'order.refund', payload, { reason: 'customer called' })
    assert.equal(req.statusCode, 200, req.body)
    const approval = req.json().data
    assert.equal(approval.status, 'pending')
    assert.equal(approval.requiredApprovals, 2, 'order.refund is high risk: two approvals')
    assert.equal(approval.riskLevel, 'high')
    assert.equal(approval.policyHandle, 'builtin-default')
    assert.deepEqual(approval.requester, { type: 'credential', id: agentId })
    // The surface is recorded as the source; what the caller said it is stays, labelled as declared.
    assert.deepEqual(approval.metadata, { ...provenance, source: 'api', declaredSource: provenance.source, declared: ['declaredSource', 'agentId'] })
    assert.equal(approval.reason, 'customer called')
    assert.deepEqual(approval.target, { type: 'orders', id: String(app.ids.orders) })
    assert.match(approval.payloadDigest, /^[0-9a-f]{64}$/)
    assert.equal(Date.parse(approval.expiresAt) - Date.parse(approval.createdAt), 60 * 60_000)

    // The requester holds the decide scope in another credential of its own here: what counts is the credential.
    const own = await app.request(selfDecider, 'order.refund', payload)
    const selfDecide = await app.decide(selfDecider, own.json().data.id, 'approve')
    assert.equal(selfDecide.statusCode, 403)
    assert.equal(selfDecide.json().error.message, 'The requester of an approval cannot decide it')

    const first = await app.decide(d1, approval.id, 'approve', 'refund is justified')
    assert.equal(first.json().data.status, 'pending')
    assert.equal(first.json().data.approvalsGiven, 1)
    const twice = await app.decide(d1, approval.id, 'approve')
    assert.equal(twice.statusCode, 403)
    assert.match(twice.json().error.message, /different decider/)
    // An approval that is not approved yet cannot be used.
    const early = await app.execute(agent, { actionType: 'order.refund', payload, approvalId: approval.id })
    assert.equal(early.json().data.status, 'blocked')
    assert.deepEqual(early.json().data.reasons, [`approval ${approval.id} is pending (1 of 2 approvals)`])

    const second = await app.decide(d2, approval.id, 'approve', 'agreed')
    assert.equal(second.statusCode, 200)
    const approved = second.json().data
    assert.equal(approved.status, 'approved')
    assert.deepEqual(approved.decisions.map((d: { decision: string; reason: string }) => [d.decision, d.reason]), [['approve', 'refund is justified'], ['approve', 'agreed']])
    assert.ok(approved.decidedAt)
    const late = await app.decide(d1, approval.id, 'reject')
    assert.equal(late.statusCode, 409)
    assert.equal(late.json().error.code, 'CONFLICT')

    const ex = await app.execute(agent, { actionType: 'order.refund', payload, approvalId: approval.id })
    assert.equal(ex.json().data.status, 'succeeded', ex.body)
    assert.deepEqual(ex.json().data.result, { orderId: app.ids.orders, previousTotalRefunded: 0, totalRefunded: 12.5, refundable: 29.5, paidStatus: 'paid' })
    const order = await app.services.store.get('orders', app.ids.orders)
    assert.equal(order?.totalRefunded, 12.5)
    const used = (await app.get(`${CONTROL}/approvals?id=${approval.id}`, agent)).json().data[0]
    assert.equal(used.status, 'consumed')
    assert.equal(used.executionId, ex.json().data.id)
    // Used once: a second execution with the same approval is blocked and writes nothing.
    const again = await app.execute(agent, { actionType: 'order.refund', payload, approvalId: approval.id })
    assert.equal(again.json().data.status, 'blocked')
    assert.match(again.json().data.reasons[0], /already used by execution exe_/)
    assert.equal((await app.services.store.get('orders', app.ids.orders))?.totalRefunded, 12.5)

    const audit = (await app.get(`${CONTROL}/audit?category=approval`, await app.token(['control:audit:read']))).json().data
    assert.deepEqual(audit.map((a: { action: string; outcome: string }) => `${a.action}:${a.outcome}`),
      ['request:success', 'request:success', 'approve:denied', 'approve:success', 'approve:denied', 'approve:success'])

    // Two deciders at once: neither decision is lost (the version check makes one re-read).
    const raced = (await app.request(agent, 'order.refund', { orderId: app.ids.orders, amount: 1 })).json().data.id
    const both = await Promise.all([app.decide(d1, raced, 'approve', 'first'), app.decide(d2, raced, 'approve', 'second')])
    assert.deepEqual(both.map((r) => r.statusCode), [200, 200])
    const final = (await app.get(`${CONTROL}/approvals?id=${raced}`, d1)).json().data[0]
    assert.deepEqual([final.status, final.approvalsGiven], ['approved', 2])
  })
}

test('a reject ends the approval; executing with it is blocked', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const agent = await app.token(AGENT_SCOPES)
  const payload = { orderId: app.ids.orders, status: 'cancelled' }
  const id = (await app.request(agent, 'order.setStatus', payload)).json().data.id
  const rejected = await app.decide(await app.token(DECIDER_SCOPES), id, 'reject', 'not before the customer confirms')
  assert.equal(rejected.json().data.status, 'rejected')
  const ex = await app.execute(agent, { actionType: 'order.setStatus', payload, approvalId: id })
  assert.deepEqual(ex.json().data.reasons, [`approval ${id} was rejected`])
  assert.equal((await app.services.store.get('orders', app.ids.orders))?.status, 'processing')
  const missingReason = await app.post(`${CONTROL}/approvals/decide`, { approvalId: id, decision: 'approve' }, await app.token(DECIDER_SCOPES))
  assert.equal(missingReason.statusCode, 400)
  assert.equal(missingReason.json().error.details[0].param, 'reason')
  const unknown = await app.decide(await app.token(DECIDER_SCOPES), 'apr_missing', 'approve')
  assert.equal(unknown.statusCode, 404)
})

test('requesters see their own approvals; deciders and audit readers see all; lists page with cursors', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const a = await app.token(AGENT_SCOPES)
  const b = await app.token(AGENT_SCOPES)
  const ids: string[] = []
  for (const status of ['pending', 'shipped', 'completed']) ids.push((await app.request(a, 'order.setStatus', { orderId: app.ids.orders, status })).json().data.id)
  const bId = (await app.request(b, 'order.setStatus', { orderId: app.ids.orders, status: 'cancelled' })).json().data.id

  const mine = (await app.get(`${CONTROL}/approvals`, b)).json().data
  assert.deepEqual(mine.map((x: { id: string }) => x.id), [bId])
  assert.deepEqual((await app.get(`${CONTROL}/approvals?id=${ids[0]}`, b)).json().data, [], "another credential's approval is not listed")

  const reader = await app.token(['control:approvals:read', 'control:audit:read'])
  const page1 = (await app.get(`${CONTROL}/approvals?limit=3`, reader)).json()
  assert.deepEqual(page1.data.map((x: { id: string }) => x.id), [bId, ids[2], ids[1]], 'newest first')
  assert.equal(page1.pagination.hasMore, true)
  const page2 = (await app.get(`${CONTROL}/approvals?limit=3&cursor=${page1.pagination.nextCursor}`, reader)).json()
  assert.deepEqual(page2.data.map((x: { id: string }) => x.id), [ids[0]])
  assert.deepEqual(page2.pagination, { hasMore: false, nextCursor: null })
  const otherQuery = await app.get(`${CONTROL}/approvals?status=pending&cursor=${page1.pagination.nextCursor}`, reader)
  assert.equal(otherQuery.statusCode, 400)
  assert.equal((await app.get(`${CONTROL}/approvals?limit=201`, reader)).statusCode, 400)
  const decider = await app.token(DECIDER_SCOPES)
  assert.equal((await app.get(`${CONTROL}/approvals`, decider)).json().data.length, 4)
})

test('control-panel admins decide through the admin API; the admin token counts as one decider', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const agent = await app.token(AGENT_SCOPES)
  const id = (await app.request(agent, 'order.refund', { orderId: app.ids.orders, amount: 5 })).json().data.id
  const adminDecide = (body: unknown, token = ADMIN_TOKEN) => app.app.inject({
    method: 'POST', url: `/gatehouse/admin/v1/control/approvals/${id}/decide`, payload: JSON.stringify(body),
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  })
  assert.equal((await adminDecide({ decision: 'approve', reason: 'ok' }, 'wrong')).statusCode, 401)
  const first = await adminDecide({ decision: 'approve', reason: 'checked the order' })
  assert.equal(first.statusCode, 200, first.body)
  assert.deepEqual(first.json().data.decisions[0].decider, { type: 'admin', id: 'admin-token' })
  assert.equal((await adminDecide({ decision: 'approve', reason: 'again' })).statusCode, 403)
  assert.equal((await adminDecide({ decision: 'maybe', reason: 'x' })).statusCode, 400)
  const second = await app.decide(await app.token(DECIDER_SCOPES), id, 'approve')
  assert.equal(second.json().data.status, 'approved')
  const listed = await app.app.inject({ method: 'GET', url: '/gatehouse/admin/v1/control/approvals?status=approved', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  assert.deepEqual(listed.json().data.map((a: { id: string }) => a.id), [id])
})

test('requests outside a limit are 400s naming the payload member; under a disabled policy they are refused and audited', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const agent = await app.token(AGENT_SCOPES)
  await app.upsertPolicy({ handle: 'refunds', displayName: 'Refunds', actionPattern: 'order.refund', limits: { maxRefundAmount: 20 } })
  const big = await app.request(agent, 'order.refund', { orderId: app.ids.orders, amount: 25 })
  assert.equal(big.statusCode, 400)
  assert.deepEqual(big.json().error.details, [{ param: 'payload.amount', problem: '25 exceeds the policy limit maxRefundAmount of 20' }])
  const tooMuch = await app.request(agent, 'order.refund', { orderId: app.ids.orders, amount: 19 })
  assert.equal(tooMuch.statusCode, 200, 'within the limit and what was paid')
  await app.upsertPolicy({ handle: 'refunds', displayName: 'Refunds', actionPattern: 'order.refund', enabled: false })
  const off = await app.request(agent, 'order.refund', { orderId: app.ids.orders, amount: 5 })
  assert.equal(off.statusCode, 403)
  assert.equal(off.json().error.message, 'Approval request refused: policy refunds is disabled and blocks order.refund')
  const audit = (await app.get(`${CONTROL}/audit?category=approval&outcome=denied`, await app.token(['control:audit:read']))).json().data
  assert.equal(audit.length, 1)
  assert.equal(audit[0].metadata.traceId, 'trace-1')
})
