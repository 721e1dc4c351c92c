// What stands between an approval and a write: the approval is bound to the digest of its
// payload and to its action, belongs to the credential that asked for it, and counts only
// while the policy's current requirements hold; the policy's extra scope and limits apply
// at execution time too. Every refusal here writes nothing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { AGENT_SCOPES, CONTROL, DECIDER_SCOPES, controlApp, openPolicy, type ControlApp } from './helpers/control-app.js'
import { twoProcesses } from '../mcp/helpers/two-processes.js'

async function approved(app: ControlApp, agent: string, actionType: string, payload: Record<string, unknown>): Promise<string> {
  const req = await app.request(agent, actionType, payload)
  assert.equal(req.statusCode, 200, req.body)
  const id = req.json().data.id as string
  for (let i = 0; i < req.json().data.requiredApprovals; i++) {
    const d = await app.decide(await app.token(DECIDER_SCOPES), id, 'approve')
    assert.equal(d.statusCode, 200, d.body)
  }
  return id
}

for (const dialect of await testDialects()) {
  test(`${dialect}: an approval is bound to its payload digest and action: another payload or action is blocked and the approval stays unused`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    const agent = await app.token(AGENT_SCOPES)
    const variantId = app.ids.variants
    const id = await approved(app, agent, 'variant.setPrice', { variantId, price: 25 })

    const other = await app.execute(agent, { actionType: 'variant.setPrice', payload: { variantId, price: 2500 }, approvalId: id })
    assert.equal(other.json().data.status, 'blocked')
    assert.match(other.json().data.reasons[0], new RegExp(`^approval ${id} was granted for a different actionType or payload`))
    const wrongAction = await app.execute(agent, { actionType: 'variant.adjustStock', payload: { variantId, delta: 1 }, approvalId: id })
    assert.equal(wrongAction.json().data.status, 'blocked')
    assert.equal((await app.services.store.get('variants', variantId))?.price, 20)
    assert.equal((await app.get(`${CONTROL}/approvals?id=${id}`, agent)).json().data[0].status, 'approved', 'not consumed by blocked executions')

    // Key order does not change the digest: the same payload written differently still matches.
    const same = await app.execute(agent, { actionType: 'variant.setPrice', payload: { price: 25, variantId }, approvalId: id })
    assert.equal(same.json().data.status, 'succeeded', same.body)
    assert.equal((await app.services.store.get('variants', variantId))?.price, 25)
  })
}

test("another credential's approval cannot be used (404), nor learned about", async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const owner = await app.token(AGENT_SCOPES)
  const thief = await app.token(AGENT_SCOPES)
  const payload = { orderId: app.ids.orders, status: 'shipped' }
  const id = await approved(app, owner, 'order.setStatus', payload)
  const res = await app.execute(thief, { actionType: 'order.setStatus', payload, approvalId: id })
  assert.equal(res.statusCode, 404)
  assert.equal(res.json().error.message, `No approval ${id}`)
  assert.equal((await app.services.store.get('orders', app.ids.orders))?.status, 'processing')
  assert.equal((await app.execute(owner, { actionType: 'order.setStatus', payload, approvalId: id })).json().data.status, 'succeeded')
})

test("the policy's required scope, limits and a raised approval count are enforced when executing", async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const agent = await app.token(AGENT_SCOPES)
  const variantId = app.ids.variants
  // The agent holds variants:read (simulating reads the variant); the policy asks for a scope it lacks.
  await app.upsertPolicy(openPolicy('prices', 'variant.setPrice', { requiredScope: 'products:read', limits: { maxPriceChangePercent: 10 } }))
  const noScope = await app.execute(agent, { actionType: 'variant.setPrice', payload: { variantId, price: 21 } })
  assert.deepEqual(noScope.json().data.reasons, ['policy prices requires the scope products:read'])
  const withScope = await app.token([...AGENT_SCOPES, 'products:read'])
  const tooFar = await app.execute(withScope, { actionType: 'variant.setPrice', payload: { variantId, price: 30 } })
  assert.deepEqual(tooFar.json().data.reasons, ['50% exceeds the policy limit maxPriceChangePercent of 10%'])
  assert.equal((await app.services.store.get('variants', variantId))?.price, 20)
  const ok = await app.execute(withScope, { actionType: 'variant.setPrice', payload: { variantId, price: 22 } })
  assert.equal(ok.json().data.status, 'succeeded')
  assert.equal((await app.services.store.get('variants', variantId))?.price, 22)

  // An approval granted under one approval needs the second one a stricter policy now asks for.
  await app.upsertPolicy({ handle: 'status', displayName: 'Status', actionPattern: 'order.setStatus', requiredApprovals: 1 })
  const payload = { orderId: app.ids.orders, status: 'shipped' }
  const id = await approved(app, agent, 'order.setStatus', payload)
  await app.upsertPolicy({ handle: 'status', displayName: 'Status', actionPattern: 'order.setStatus', requiredApprovals: 2 })
  const stricter = await app.execute(agent, { actionType: 'order.setStatus', payload, approvalId: id })
  assert.deepEqual(stricter.json().data.reasons, [`policy status now requires 2 approvals; approval ${id} has 1`])
  assert.equal((await app.services.store.get('orders', app.ids.orders))?.status, 'processing')
})

// Limits on stored values are checked again inside the transaction: ten concurrent price
// changes, each within 10 % of the price read before it, moved the price about 20 % at a time
// on PostgreSQL. And a refund of less than a cent is refused (it refunded nothing and still
// recorded a change).
for (const dialect of await testDialects()) {
  test(`${dialect}: concurrent price changes each stay within maxPriceChangePercent of the price they change; a sub-cent refund is a 400`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    await app.upsertPolicy(openPolicy('prices', 'variant.setPrice', { limits: { maxPriceChangePercent: 10 } }))
    await app.upsertPolicy(openPolicy('refunds', 'order.refund'))
    const agent = await app.token(AGENT_SCOPES)
    const variantId = app.ids.variants
    const start = (await app.services.store.get('variants', variantId))?.price as number
    const prices = Array.from({ length: 10 }, (_, i) => Math.round(start * (i % 2 === 0 ? 0.91 : 1.09) * 100) / 100)
    const answers = await Promise.all(prices.map((price, i) => app.post(`${CONTROL}/actions/execute`, { actionType: 'variant.setPrice', payload: { variantId, price }, metadata: { source: 's', agentId: 'a', traceId: `t${i}` } }, agent, { 'Idempotency-Key': `price-${i}` })))
    const moves = answers.map((a) => a.json().data).filter((e) => e.status === 'succeeded').map((e) => Math.abs(e.result.price - e.result.previousPrice) / e.result.previousPrice)
    assert.ok(moves.length >= 1, answers.map((a) => a.body).join('\n'))
    for (const m of moves) assert.ok(m <= 0.1 + 1e-9, `a change of ${(m * 100).toFixed(2)} % got through: ${moves.map((x) => (x * 100).toFixed(2)).join(', ')}`)
    // Whichever check catches it (before the transaction or inside it), a change past the
    // limit is blocked with the limit named, on either engine: never a failure.
    for (const e of answers.map((a) => a.json().data).filter((e) => e.status !== 'succeeded')) {
      assert.equal(e.status, 'blocked', JSON.stringify(e))
      assert.match(e.reasons[0], /% exceeds the policy limit maxPriceChangePercent of 10%$/)
    }

    const tiny = await app.post(`${CONTROL}/actions/execute`, { actionType: 'order.refund', payload: { orderId: app.ids.orders, amount: 0.001 }, metadata: { source: 's', agentId: 'a', traceId: 'r' } }, agent, { 'Idempotency-Key': 'tiny' })
    assert.equal(tiny.statusCode, 400, tiny.body)
    assert.deepEqual(tiny.json().error.details, [{ param: 'payload.amount', problem: 'must be at least 0.01' }])
  })
}

// The stock floor under a race: ten concurrent takes of one unit from a stock of four. Four
// succeed, the stock ends at 0, and the other six are blocked by the floor on both engines (on
// PostgreSQL some pass the check before the transaction and meet the floor inside it, which
// recorded them as failed).
for (const dialect of await testDialects()) {
  test(`${dialect}: concurrent stock adjustments stop at the floor, and the ones past it are blocked`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    await app.upsertPolicy(openPolicy('stock', 'variant.adjustStock'))
    const agent = await app.token(AGENT_SCOPES)
    const variantId = app.ids.variants
    await app.services.store.transaction((w) => w.update('variants', variantId, { stock: 4, hasUnlimitedStock: false }))
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => app.post(`${CONTROL}/actions/execute`, { actionType: 'variant.adjustStock', payload: { variantId, delta: -1 }, metadata: { source: 's', agentId: 'a', traceId: `s${i}` } }, agent, { 'Idempotency-Key': `stock-${i}` })))
    const executions = answers.map((a) => a.json().data)
    assert.deepEqual(executions.map((e) => e.status).sort(), [...Array(4).fill('succeeded'), ...Array(6).fill('blocked')].sort(), answers.map((a) => a.body).join('\n'))
    for (const e of executions.filter((e) => e.status === 'blocked')) {
      assert.deepEqual(e.reasons, ['stock would fall to -1; it may not go below 0 unless the policy sets allowNegativeStock'])
      assert.deepEqual(e.steps, [{ name: 'adjustStock', status: 'skipped' }])
    }
    assert.equal((await app.services.store.get('variants', variantId))?.stock, 0)
  })
}

// A draft's name is unique per entry; for a new entry's drafts (entry id null) no index holds
// it, and concurrent saves under one name each made a draft (PostgreSQL, requests spread over
// two serving processes as behind a load balancer). They take turns.
for (const dialect of await testDialects()) {
  test(`${dialect}: concurrent saves of a new entry's draft under one name, over two processes, make one draft`, async (t) => {
    const p = await twoProcesses(dialect)
    t.after(() => p.close())
    assert.equal((await p.admin(p.a, 'POST', '/control/policies/upsert', openPolicy('drafts', 'entry.updateDraft'))).statusCode, 200)
    const token = await p.a.issueToken(AGENT_SCOPES)
    const answers = await Promise.all(Array.from({ length: 12 }, async (_, i) => {
      const res = await fetch(`${p.urls[i % 2]}${CONTROL}/actions/execute`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `draft-${i}` },
        body: JSON.stringify({ actionType: 'entry.updateDraft', payload: { name: 'race', section: 'news', type: 'article', title: `T${i}`, slug: `race-${i}` }, metadata: { source: 's', agentId: 'a', traceId: `d${i}` } }),
      })
      return (await res.json()) as { data?: { status: string; result?: { created: boolean } } }
    }))
    assert.deepEqual(answers.map((a) => a.data?.status), Array.from({ length: 12 }, () => 'succeeded'), JSON.stringify(answers))
    const drafts = await p.a.database.db.selectFrom('entry_drafts').select('id').where('name', '=', 'race').execute()
    assert.equal(drafts.length, 1, 'one draft, updated by the later saves')
    assert.equal(answers.filter((a) => a.data?.result?.created === true).length, 1)
  })
}
