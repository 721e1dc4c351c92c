// Expiry runs on a timer started with the app, never as a side effect of reading: an
// approval past its TTL stays as it was until the timer runs (though it can no longer be
// decided or used), then becomes expired, pending or approved alike, and each expiry is
// audited with the system as actor.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { testDialects } from '../helpers/test-app.js'
import { AGENT_SCOPES, CONTROL, DECIDER_SCOPES, controlApp } from './helpers/control-app.js'

const TTL_MINUTES = 0.01 // 600 ms, the shortest a policy allows

for (const dialect of await testDialects()) {
  test(`${dialect}: approvals expire by the timer, not by reads; expiries are audited`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    assert.equal(app.services.control.expiry.started, true, 'the timer starts with the app')
    assert.equal((await app.upsertPolicy({ handle: 'quick', displayName: 'Quick', actionPattern: 'order.setStatus', requiredApprovals: 1, approvalTtlMinutes: TTL_MINUTES })).statusCode, 200)
    const agent = await app.token(AGENT_SCOPES)
    const decider = await app.token(DECIDER_SCOPES)
    const payload = { orderId: app.ids.orders, status: 'shipped' }

    // With the timer stopped, time passing and reading change nothing.
    await app.services.control.close()
    const a = (await app.request(agent, 'order.setStatus', payload)).json().data
    assert.equal(Date.parse(a.expiresAt) - Date.parse(a.createdAt), 600)
    await sleep(700)
    const read = (await app.get(`${CONTROL}/approvals?id=${a.id}`, agent)).json().data[0]
    assert.equal(read.status, 'pending', 'reading does not expire it')
    const decide = await app.decide(decider, a.id, 'approve')
    assert.equal(decide.statusCode, 409)
    assert.equal(decide.json().error.message, `Approval ${a.id} expired at ${a.expiresAt}`)
    const sim = (await app.post(`${CONTROL}/policy-simulate`, { actionType: 'order.setStatus', payload, approvalId: a.id }, agent)).json().data
    assert.equal(sim.approval.usable, false)
    assert.ok(sim.reasons.includes(`approval ${a.id} expired at ${a.expiresAt}`))
    assert.equal((await app.get(`${CONTROL}/approvals?id=${a.id}`, agent)).json().data[0].status, 'pending')
    assert.equal(await app.controlAuditCount(), 2, 'only the policy and the request were audited so far')

    // The timer, started again, expires it, and an approved one nobody used in time.
    app.services.control.start()
    const b = (await app.request(agent, 'order.setStatus', payload)).json().data
    assert.equal((await app.decide(decider, b.id, 'approve')).json().data.status, 'approved')
    const until = Date.now() + 5000
    let statuses: string[] = []
    while (Date.now() < until) {
      statuses = await Promise.all([a.id, b.id].map(async (id) => (await app.get(`${CONTROL}/approvals?id=${id}`, agent)).json().data[0].status))
      if (statuses.every((s) => s === 'expired')) break
      await sleep(50)
    }
    assert.deepEqual(statuses, ['expired', 'expired'])
    const ex = await app.execute(agent, { actionType: 'order.setStatus', payload, approvalId: b.id })
    assert.deepEqual(ex.json().data.reasons, [`approval ${b.id} expired at ${b.expiresAt}`])
    assert.equal((await app.services.store.get('orders', app.ids.orders))?.status, 'processing')

    const audit = (await app.get(`${CONTROL}/audit?action=expire`, await app.token(['control:audit:read']))).json().data
    assert.deepEqual(audit.map((r: { entity: { id: string }; metadata: { previousStatus: string }; actor: unknown }) => [r.entity.id, r.metadata.previousStatus, r.actor]).sort(),
      [[a.id, 'pending', { type: 'system', id: 'gatehouse' }], [b.id, 'approved', { type: 'system', id: 'gatehouse' }]].sort())
    // A second sweep finds nothing more to expire and audits nothing.
    assert.equal(await app.services.control.expiry.sweep(), 0)
  })
}
