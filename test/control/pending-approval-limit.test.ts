// A credential may have at most PENDING_APPROVALS_PER_CREDENTIAL pending approvals: one more
// request (an action or a policy.upsert) is a 409 naming the limit and stores nothing; other
// credentials are not affected, and a decision makes room again.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { PENDING_APPROVALS_PER_CREDENTIAL } from '../../src/control/approval-limits.js'
import { AGENT_SCOPES, DECIDER_SCOPES, controlApp } from './helpers/control-app.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: at most ${PENDING_APPROVALS_PER_CREDENTIAL} pending approvals per credential (409 naming the limit)`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    const agent = await app.token([...AGENT_SCOPES, 'control:policies:write'])
    const price = (n: number) => ({ variantId: app.ids.variants, price: 20 + n / 100 })
    const first = await app.request(agent, 'variant.setPrice', price(0))
    assert.equal(first.statusCode, 200, first.body)
    const requesterId = first.json().data.requester.id
    // Fill up to the limit through the store (as many requests would), all pending.
    const now = Date.now()
    await app.database.db.transaction().execute(async (tx) => {
      for (let i = 1; i < PENDING_APPROVALS_PER_CREDENTIAL; i++) {
        await app.services.control.approvals.insert(tx, {
          id: `apr_fill${i}`, actionType: 'variant.setPrice', payload: price(i), payloadDigest: `d${i}`, reviewedState: null, riskLevel: 'medium', requiredApprovals: 1,
          policyHandle: 'builtin-default', requester: { type: 'credential', id: requesterId }, metadata: { source: 's', agentId: 'a', traceId: 't' },
          reason: null, target: { type: 'variants', id: String(app.ids.variants) }, createdAt: now, expiresAt: now + 3_600_000,
        })
      }
    })
    const count = () => app.count('control_approvals')
    const before = await count()
    const refused = await app.request(agent, 'variant.setPrice', price(500))
    assert.equal(refused.statusCode, 409, refused.body)
    assert.equal(refused.json().error.message, `This credential has ${PENDING_APPROVALS_PER_CREDENTIAL} pending approvals; at most ${PENDING_APPROVALS_PER_CREDENTIAL} may be pending per credential: wait until some are decided or expire`)
    const policy = await app.request(agent, 'policy.upsert', { handle: 'open', displayName: 'Open', actionPattern: '*', requiresApproval: false })
    assert.equal(policy.statusCode, 409, 'policy.upsert requests count too')
    assert.equal(await count(), before, 'nothing stored')

    assert.equal((await app.request(await app.token(AGENT_SCOPES), 'variant.setPrice', price(501))).statusCode, 200, 'another credential is not affected')
    assert.equal((await app.decide(await app.token(DECIDER_SCOPES), first.json().data.id, 'reject')).statusCode, 200)
    assert.equal((await app.request(agent, 'variant.setPrice', price(502))).statusCode, 200, 'a decision makes room')
  })
}
