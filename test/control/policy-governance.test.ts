// Relaxing governance is itself governed. A credential with control:policies:write writes a
// policy change directly only when it relaxes nothing; a relaxing change is a 409 naming what
// it relaxes until a different decider approves it as a policy.upsert approval, and a bounded
// credential may write only patterns its boundaries can contain. Operators (admin API) write
// directly. Every path is audited.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { AGENT_SCOPES, CONTROL, DECIDER_SCOPES, controlApp, type ControlApp } from './helpers/control-app.js'

const WRITER = ['control:policies:write', 'control:approvals:request', 'control:approvals:read']
const setStatus = (app: ControlApp) => ({ actionType: 'order.setStatus', payload: { orderId: app.ids.orders, status: 'shipped' } })
const params = (res: { json(): { error: { details?: { param: string }[] } } }) => [...new Set((res.json().error.details ?? []).map((d) => d.param))].sort()

async function auditOf(app: ControlApp, category: string) {
  const res = await app.get(`${CONTROL}/audit?category=${category}&limit=200`, await app.token(['control:audit:read']))
  return res.json().data as { action: string; outcome: string; actor: { type: string; id: string }; metadata: Record<string, unknown>; summary: string }[]
}

for (const dialect of await testDialects()) {
  test(`${dialect}: the attack fails: a bounded writer cannot open "*", an unbounded one needs another decider's approval, and orders keep needing approval`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    const agent = await app.token(AGENT_SCOPES)
    const open = { handle: 'everything', displayName: 'Everything', actionPattern: '*', requiresApproval: false }

    // The outside attack: bounded to one product, it upserted "*" without approval.
    const bounded = await app.token(WRITER, { boundaries: { productIds: [app.ids.products] } })
    const refused = await app.upsertPolicyAsCredential(open, bounded)
    assert.equal(refused.statusCode, 403, refused.body)
    assert.equal(refused.json().error.code, 'FORBIDDEN')
    assert.match(refused.json().error.message, /policy everything would govern entry\.updateDraft, entry\.publishDraft, order\.setStatus, order\.refund, outside the credential's boundaries/)
    // Inside its boundary it may still tighten: the product's own actions.
    const own = await app.upsertPolicyAsCredential({ handle: 'prices', displayName: 'Prices', actionPattern: 'variant.setPrice', requiredApprovals: 2, limits: { maxPriceChangePercent: 5 } }, bounded)
    assert.equal(own.statusCode, 200, own.body)

    // Unbounded: the change relaxes control, so it is not written. (This writer may decide
    // approvals too, but never its own.)
    const writer = await app.token([...WRITER, 'control:approvals:decide'])
    const conflict = await app.upsertPolicyAsCredential(open, writer)
    assert.equal(conflict.statusCode, 409, conflict.body)
    assert.equal(conflict.json().error.code, 'CONFLICT')
    assert.match(conflict.json().error.message, /relaxes control and needs an approval by another decider: POST \/control\/approvals\/request with actionType policy\.upsert/)
    // The pattern takes over actions the built-in policy decided, and lies lax under "prices"
    // (variant.setPrice), which it would decide once "prices" no longer matched.
    assert.deepEqual(params(conflict), ['actionPattern', 'limits.maxPriceChangePercent', 'requiresApproval'])
    assert.ok(conflict.json().error.details.some((d: { problem: string }) => d.problem === 'relaxes control: order.setStatus: policy builtin-default required approval; policy everything (now deciding it) does not'))
    assert.deepEqual((await app.services.control.policies.list()).map((p) => p.handle), ['prices'], 'nothing written')

    // So the other credential still cannot set an order's status without approval.
    const blocked = await app.execute(agent, setStatus(app))
    assert.equal(blocked.json().data.status, 'blocked')
    assert.match(blocked.json().data.reasons[0], /policy builtin-default requires approval \(2 approvals\)/)
    assert.equal((await app.services.store.get('orders', app.ids.orders))?.status, 'processing')

    // The governed path: request a policy.upsert approval; it needs as many approvals as the
    // strictest relaxed action needed (two: the built-in default).
    const requested = await app.request(writer, 'policy.upsert', open, { reason: 'open everything for the migration' })
    assert.equal(requested.statusCode, 200, requested.body)
    const approval = requested.json().data
    assert.equal(approval.actionType, 'policy.upsert')
    assert.equal(approval.status, 'pending')
    assert.equal(approval.requiredApprovals, 2)
    assert.deepEqual(approval.target, { type: 'policy', id: 'everything' })
    assert.equal(approval.policyHandle, 'builtin-policy-governance')
    assert.deepEqual(approval.payload, { handle: 'everything', displayName: 'Everything', actionPattern: '*', enabled: true, requiresApproval: false,
      riskLevel: null, requiredApprovals: null, requiredScope: null, approvalTtlMinutes: 60, limits: {} }, 'bound to the whole policy, defaults filled in')
    assert.equal(approval.reviewedState.content.policy, null, 'and to the stored policy it replaces (none)')
    assert.ok(approval.reviewedState.content.relaxations.includes('order.setStatus: policy builtin-default required approval; policy everything (now deciding it) does not'), 'and to what it relaxes')

    // Pending: not usable yet; the requester cannot decide it.
    const early = await app.upsertPolicyAsCredential({ ...open, approvalId: approval.id }, writer)
    assert.equal(early.statusCode, 409)
    assert.match(early.json().error.message, /is pending \(0 of 2 approvals\)/)
    const selfDecide = await app.decide(writer, approval.id, 'approve')
    assert.equal(selfDecide.statusCode, 403, 'the requester cannot decide its own policy change')
    assert.equal(selfDecide.json().error.message, 'The requester of an approval cannot decide it')

    const deciderA = await app.token(DECIDER_SCOPES)
    const deciderB = await app.token(DECIDER_SCOPES)
    assert.equal((await app.decide(deciderA, approval.id, 'approve')).json().data.status, 'pending', 'one of two approvals')
    assert.equal((await app.decide(deciderA, approval.id, 'approve')).statusCode, 403, 'the second approval comes from another decider')
    assert.equal((await app.decide(deciderB, approval.id, 'approve')).json().data.status, 'approved')

    // Another policy with this approval: refused. Exactly the approved one: written once.
    const other = await app.upsertPolicyAsCredential({ ...open, approvalTtlMinutes: 600, approvalId: approval.id }, writer)
    assert.equal(other.statusCode, 409)
    assert.match(other.json().error.message, /was granted for a different policy/)
    const stranger = await app.upsertPolicyAsCredential({ ...open, approvalId: approval.id }, await app.token(WRITER))
    assert.equal(stranger.statusCode, 404, "another credential's approval is not usable")
    const applied = await app.upsertPolicyAsCredential({ ...open, approvalId: approval.id }, writer)
    assert.equal(applied.statusCode, 200, applied.body)
    assert.equal(applied.json().data.requiresApproval, false)
    const again = await app.upsertPolicyAsCredential({ ...open, approvalId: approval.id }, writer)
    assert.equal(again.statusCode, 409)
    assert.match(again.json().error.message, /already used/)
    const used = (await app.get(`${CONTROL}/approvals?id=${approval.id}`, deciderA)).json().data[0]
    assert.equal(used.status, 'consumed')

    // Now the order action runs without approval: the relaxation was approved.
    assert.equal((await app.execute(agent, setStatus(app))).json().data.status, 'succeeded')

    // The audit shows each path: refused (boundaries), blocked (needs approval), approved.
    const policy = await auditOf(app, 'policy')
    assert.deepEqual(policy.map((a) => `${a.action}:${a.outcome}:${a.metadata.path ?? '-'}`), [
      'create:denied:-', 'create:success:direct', 'create:blocked:approval-required', 'create:success:approval',
    ])
    assert.equal(policy[3].metadata.approvalId, approval.id)
    assert.ok((policy[3].metadata.relaxations as string[]).includes('order.setStatus: policy builtin-default required approval; policy everything (now deciding it) does not'))
    const approvals = await auditOf(app, 'approval')
    assert.ok(approvals.some((a) => a.action === 'request' && a.metadata.actionType === 'policy.upsert' && (a.metadata.relaxations as string[]).length > 0))
  })

  test(`${dialect}: tightening is written directly; raising a limit, fewer approvals, unblocking, widening a pattern or a laxer new policy needs approval; operators write directly`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    const writer = await app.token(WRITER)
    const price = { handle: 'prices', displayName: 'Prices', actionPattern: 'variant.setPrice', requiredApprovals: 1, limits: { maxPriceChangePercent: 10 } }
    // An operator sets the starting point (relaxing the built-in two approvals: operators may).
    const start = await app.upsertPolicy(price)
    assert.equal(start.statusCode, 200, start.body)

    const direct = async (change: Record<string, unknown>) => {
      const res = await app.upsertPolicyAsCredential({ ...price, ...change }, writer)
      assert.equal(res.statusCode, 200, `${JSON.stringify(change)} tightens: ${res.body}`)
    }
    const needsApproval = async (change: Record<string, unknown>, param: string, problem: RegExp) => {
      const res = await app.upsertPolicyAsCredential({ ...price, ...change }, writer)
      assert.equal(res.statusCode, 409, `${JSON.stringify(change)} relaxes: ${res.body}`)
      assert.ok(params(res).includes(param), `${JSON.stringify(change)} names ${param}: ${res.body}`)
      assert.ok(res.json().error.details.some((d: { problem: string }) => problem.test(d.problem)), `${JSON.stringify(change)}: ${res.body}`)
    }
    await direct({ limits: { maxPriceChangePercent: 5 } })
    await direct({ limits: { maxPriceChangePercent: 5 }, requiredApprovals: 2, riskLevel: 'critical', requiredScope: 'variants:read', approvalTtlMinutes: 30 })
    price.limits = { maxPriceChangePercent: 5 }
    Object.assign(price, { requiredApprovals: 2, riskLevel: 'critical', requiredScope: 'variants:read', approvalTtlMinutes: 30 })

    await needsApproval({ limits: { maxPriceChangePercent: 50 } }, 'limits.maxPriceChangePercent', /limit maxPriceChangePercent was 5 under policy prices; 50 under policy prices/)
    await needsApproval({ limits: {} }, 'limits.maxPriceChangePercent', /was 5 .* none under/)
    await needsApproval({ requiredApprovals: 1 }, 'requiredApprovals', /required 2 approvals; policy prices requires 1/)
    await needsApproval({ requiresApproval: false }, 'requiresApproval', /required approval; policy prices does not/)
    await needsApproval({ riskLevel: 'low' }, 'riskLevel', /risk critical under policy prices; low under/)
    await needsApproval({ requiredScope: null }, 'requiredScope', /required the scope variants:read; policy prices requires none/)
    await needsApproval({ approvalTtlMinutes: 600 }, 'approvalTtlMinutes', /approvals lived 30 minutes/)
    // Widening the pattern puts adjustStock (two approvals by default) under this policy: with
    // its values that would be no looser; with one approval it is.
    await direct({ actionPattern: 'variant.*' })
    price.actionPattern = 'variant.*'
    await app.upsertPolicy({ ...price, actionPattern: 'variant.setPrice' })
    price.actionPattern = 'variant.setPrice'
    await app.upsertPolicy({ handle: 'laxstock', displayName: 'Lax stock', actionPattern: 'variant.adjust*', requiredApprovals: 1 })
    await needsApproval({ handle: 'newvariants', actionPattern: 'variant.adjustStock', requiresApproval: false }, 'actionPattern', /variant\.adjustStock: policy laxstock required approval; policy newvariants \(now deciding it\) does not/)

    // Disabling blocks: tightening. Enabling again unblocks: relaxing.
    await direct({ enabled: false })
    await needsApproval({ enabled: true }, 'enabled', /variant\.setPrice: policy prices was disabled and blocked it; policy prices lets it run/)
    // A new, wider policy is no relaxation where a more specific one still decides...
    const wide = await app.upsertPolicyAsCredential({ handle: 'orders-open', displayName: 'Orders', actionPattern: 'order.*', requiresApproval: false, riskLevel: 'low' }, writer)
    assert.equal(wide.statusCode, 409, 'but order.* takes both order actions from the built-in policy')
    assert.deepEqual(params(wide), ['actionPattern'])
    await app.upsertPolicy({ handle: 'refunds', displayName: 'Refunds', actionPattern: 'order.refund', requiredApprovals: 2 })
    await app.upsertPolicy({ handle: 'status', displayName: 'Status', actionPattern: 'order.setStatus', requiredApprovals: 2 })
    // ...but a lax policy shadowed by stricter ones is a relaxation waiting to be released:
    // it decides both order actions once their exact policies no longer match them.
    const shadowed = await app.upsertPolicyAsCredential({ handle: 'orders-open', displayName: 'Orders', actionPattern: 'order.*', requiresApproval: false }, writer)
    assert.equal(shadowed.statusCode, 409, shadowed.body)
    assert.deepEqual(params(shadowed), ['requiresApproval'])
    assert.ok(shadowed.json().error.details.some((d: { problem: string }) => d.problem === 'relaxes control: order.refund: policy refunds required approval; policy orders-open (which decides it once policy refunds no longer matches it) does not'), shadowed.body)
    assert.equal((await app.upsertPolicy({ handle: 'orders-open', displayName: 'Orders', actionPattern: 'order.*', requiresApproval: false })).statusCode, 200, 'an operator may')
    // ...and narrowing a strict policy so a laxer one decides relaxes.
    const narrowed = await app.upsertPolicyAsCredential({ handle: 'status', displayName: 'Status', actionPattern: 'order.refund', requiredApprovals: 2 }, writer)
    assert.equal(narrowed.statusCode, 409)
    assert.ok(narrowed.json().error.details.some((d: { problem: string }) => /order\.setStatus: policy status required approval; policy orders-open \(now deciding it\) does not/.test(d.problem)), narrowed.body)

    // Operators (admin API) write relaxing changes directly; the audit says so.
    const op = await app.upsertPolicy({ ...price, enabled: true, requiresApproval: false })
    assert.equal(op.statusCode, 200, op.body)
    assert.equal(op.json().data.updatedBy, 'admin:admin-token')
    const records = await auditOf(app, 'policy')
    const last = records[records.length - 1]
    assert.equal(last.metadata.path, 'operator')
    assert.equal(last.actor.type, 'admin')
    assert.ok((last.metadata.relaxations as string[]).some((r) => /was disabled and blocked it/.test(r)), JSON.stringify(last.metadata))
    assert.ok(records.filter((r) => r.outcome === 'blocked').every((r) => r.metadata.path === 'approval-required'))
    assert.ok(records.filter((r) => r.outcome === 'success' && r.actor.type === 'credential').every((r) => r.metadata.path === 'direct'))
  })

  test(`${dialect}: an approved policy change is not applied over a policy changed since the request`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    await app.upsertPolicy({ handle: 'stock', displayName: 'Stock', actionPattern: 'variant.adjustStock', limits: { maxStockAdjustment: 5 } })
    const writer = await app.token(WRITER)
    const change = { handle: 'stock', displayName: 'Stock', actionPattern: 'variant.adjustStock', limits: { maxStockAdjustment: 50 } }
    const approval = (await app.request(writer, 'policy.upsert', change)).json().data
    assert.equal(approval.requiredApprovals, 1)
    assert.equal((await app.decide(await app.token(DECIDER_SCOPES), approval.id, 'approve')).json().data.status, 'approved')
    // An operator changes the policy meanwhile.
    await app.upsertPolicy({ handle: 'stock', displayName: 'Stock', actionPattern: 'variant.adjustStock', limits: { maxStockAdjustment: 2 } })
    const res = await app.upsertPolicyAsCredential({ ...change, approvalId: approval.id }, writer)
    assert.equal(res.statusCode, 409)
    assert.match(res.json().error.message, /policy stock has changed since approval was requested; request a new approval/)
    assert.equal((await app.services.control.policies.get('stock'))?.limits.maxStockAdjustment, 2)
    // A policy.upsert request needs control:policies:write, and a valid policy as payload.
    const noWrite = await app.request(await app.token(['control:approvals:request']), 'policy.upsert', change)
    assert.equal(noWrite.statusCode, 403)
    assert.equal(noWrite.json().error.message, 'Missing required scope: control:policies:write')
    const bad = await app.request(writer, 'policy.upsert', { handle: 'x', displayName: 'X', actionPattern: 'nothing.matches', requiresApproval: 'no' })
    assert.equal(bad.statusCode, 400)
    assert.deepEqual(params(bad), ['payload.requiresApproval'])
  })
}
