// Order statuses move only along the declared transitions (src/resources/order-status.ts,
// docs/content-model.md): any other change is a 409 naming the current and the requested
// status, through the admin API and the governed order.setStatus alike, and isCompleted and
// dateOrdered always agree with the status (a completed order set back to cart no longer
// stays "placed").
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { adminClient, adminTestApp } from '../admin/helpers/admin-client.js'
import { AGENT_SCOPES, CONTROL, controlApp, openPolicy } from '../control/helpers/control-app.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: admin API: allowed transitions keep isCompleted and dateOrdered consistent; others are a 409`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const admin = adminClient(app)
    const orders = '/orders'
    // A cart given isCompleted true is still a cart: not placed, no order date.
    const made = await admin.post(orders, { number: 'c'.repeat(32), currency: 'EUR', status: 'cart', isCompleted: true, dateOrdered: '2025-01-01T00:00:00.000Z' })
    assert.equal(made.statusCode, 201, made.body)
    const cart = made.json().data
    assert.deepEqual([cart.status, cart.isCompleted, cart.dateOrdered], ['cart', false, null])
    const placed = await admin.patch(`${orders}/${cart.id}`, { status: 'processing' })
    assert.equal(placed.statusCode, 200, placed.body)
    assert.equal(placed.json().data.isCompleted, true)
    assert.ok(Date.parse(placed.json().data.dateOrdered) > Date.now() - 60_000, 'placed now')
    assert.equal((await admin.patch(`${orders}/${cart.id}`, { status: 'completed' })).statusCode, 200)

    const back = await admin.patch(`${orders}/${cart.id}`, { status: 'cart' })
    assert.equal(back.statusCode, 409)
    assert.equal(back.json().error.code, 'CONFLICT')
    assert.equal(back.json().error.message, `Order ${cart.id} is completed and cannot become cart; from completed it can become refunded`)
    const shipped = await admin.patch(`${orders}/${cart.id}`, { status: 'shipped' })
    assert.equal(shipped.statusCode, 409)
    assert.match(shipped.json().error.message, /is completed and cannot become shipped/)
    const stored = (await admin.get(`${orders}/${cart.id}`)).json().data
    assert.deepEqual([stored.status, stored.isCompleted], ['completed', true], 'nothing written')
    assert.equal((await admin.patch(`${orders}/${cart.id}`, { status: 'completed', reference: 'R-1' })).statusCode, 200, 'the same status again is fine')
    const refunded = await admin.patch(`${orders}/${cart.id}`, { status: 'refunded' })
    assert.equal(refunded.statusCode, 200)
    const final = await admin.patch(`${orders}/${cart.id}`, { status: 'pending' })
    assert.equal(final.statusCode, 409)
    assert.match(final.json().error.message, /from refunded it can become nothing \(final\)$/)

    // A placed order created directly gets its date and is listed as placed.
    const direct = (await admin.post(orders, { number: 'd'.repeat(32), currency: 'EUR', status: 'pending', isCompleted: false })).json().data
    assert.equal(direct.isCompleted, true)
    assert.notEqual(direct.dateOrdered, null)
    const token = await app.issueToken(['orders:read'])
    const listed = (await app.get('/gatehouse/v1/orders', token)).json().data.map((o: { id: number }) => o.id).sort()
    assert.deepEqual(listed, [cart.id, direct.id].sort())
  })

  test(`${dialect}: governed order.setStatus: a transition that is not allowed is a 409 from simulate, request and execute, with nothing recorded`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    await app.upsertPolicy(openPolicy('open', '*'))
    const agent = await app.token(AGENT_SCOPES)
    const orderId = app.ids.orders
    const payload = { orderId, status: 'cart' }
    const simulated = await app.post(`${CONTROL}/policy-simulate`, { actionType: 'order.setStatus', payload }, agent)
    assert.equal(simulated.statusCode, 409)
    assert.equal(simulated.json().error.message, `Order ${orderId} is processing and cannot become cart; from processing it can become pending, shipped, completed, cancelled, refunded`)
    // The member that asked for it is named, as a 400 names a bad one.
    assert.deepEqual(simulated.json().error.details, [{ param: 'payload.status', problem: 'processing cannot become cart; from processing it can become pending, shipped, completed, cancelled, refunded' }])
    assert.equal((await app.request(agent, 'order.setStatus', payload)).statusCode, 409)
    const executed = await app.execute(agent, { actionType: 'order.setStatus', payload }, 'k-back')
    assert.equal(executed.statusCode, 409)
    assert.equal(executed.json().error.code, 'CONFLICT')
    assert.equal(await app.count('control_executions'), 0)

    const ok = await app.execute(agent, { actionType: 'order.setStatus', payload: { orderId, status: 'shipped' } }, 'k-ship')
    assert.equal(ok.statusCode, 200, ok.body)
    assert.equal(ok.json().data.status, 'succeeded')
    const token = await app.issueToken(['orders:read'])
    const order = (await app.get(`/gatehouse/v1/orders/show?id=${orderId}`, token)).json().data
    assert.deepEqual([order.status, order.isCompleted], ['shipped', true])
  })
}
