// `order.setStatus` to a status that may not follow the order's current one is a rule of the
// action, as the refundable amount is for `order.refund`: execution is `blocked` with the reason
// (stored under its Idempotency-Key and audited, nothing written), simulation answers `blocked`
// with the rule among its limits, and an approval request is a 400 naming `payload.status`. It
// was a 409 before anything was evaluated: no execution kept its key, nothing was audited, and
// simulation answered the 409 instead of a decision.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { AGENT_SCOPES, CONTROL, controlApp, openPolicy, provenance } from './helpers/control-app.js'

const REASON = 'completed cannot become shipped; from completed it can become refunded'

for (const dialect of await testDialects()) {
  test(`${dialect}: a status an order may not take next blocks order.setStatus with the reason; simulation and approval requests say so`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    await app.upsertPolicy(openPolicy('orders', 'order.setStatus'))
    const agent = await app.token(AGENT_SCOPES)
    const orderId = app.ids.orders
    assert.equal((await app.execute(agent, { actionType: 'order.setStatus', payload: { orderId, status: 'completed' } })).json().data.status, 'succeeded')

    const body = { actionType: 'order.setStatus', payload: { orderId, status: 'shipped' } }
    const audited = await app.controlAuditCount()
    const blocked = await app.execute(agent, body, 'to-shipped')
    assert.equal(blocked.statusCode, 200, blocked.body)
    assert.equal(blocked.json().data.status, 'blocked')
    assert.deepEqual(blocked.json().data.reasons, [REASON])
    assert.equal((await app.services.store.get('orders', orderId))?.status, 'completed')
    assert.equal(await app.controlAuditCount(), audited + 1)
    // Kept under its key: the same body answers it again, another body is refused.
    const replay = await app.execute(agent, body, 'to-shipped')
    assert.equal(replay.json().data.id, blocked.json().data.id)
    assert.equal(replay.headers['idempotent-replayed'], 'true')
    assert.equal((await app.execute(agent, { ...body, payload: { orderId, status: 'refunded' } }, 'to-shipped')).statusCode, 409)

    const sim = await app.post(`${CONTROL}/policy-simulate`, body, agent)
    assert.equal(sim.statusCode, 200, sim.body)
    assert.equal(sim.json().data.decision, 'blocked')
    const rule = (sim.json().data.limits as { name: string; ok: boolean; problem: string | null }[]).find((l) => l.name === 'statusTransition')
    assert.deepEqual(rule && { ok: rule.ok, problem: rule.problem }, { ok: false, problem: REASON })

    const request = await app.request(agent, 'order.setStatus', { orderId, status: 'shipped' }, { metadata: provenance })
    assert.equal(request.statusCode, 400, request.body)
    assert.deepEqual(request.json().error.details, [{ param: 'payload.status', problem: REASON }])

    // A status that may follow still runs.
    const refunded = await app.execute(agent, { actionType: 'order.setStatus', payload: { orderId, status: 'refunded' } })
    assert.equal(refunded.json().data.status, 'succeeded')
  })
}
