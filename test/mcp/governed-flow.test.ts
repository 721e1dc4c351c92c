// The governed flow through MCP: an agent simulates, asks for approval (provenance from its
// session), an operator decides through the admin API, the agent executes once, and the same
// idempotency key answers the stored execution. No tool writes without an approved approval,
// and the audit log shows source mcp and the client's name.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { testDialects } from '../helpers/test-app.js'
import { ADMIN_TOKEN, AGENT_SCOPES, CONTROL, controlApp, type ControlApp } from '../control/helpers/control-app.js'
import { connect, structured, toolErrorOf } from './helpers/mcp-client.js'

async function price(app: ControlApp, variantId: number): Promise<number> {
  const res = await app.get(`${BASE_PATH}/variants/show?id=${variantId}`, await app.issueToken(['variants:read']))
  return res.json().data.price as number
}

async function variantChanges(app: ControlApp, variantId: number): Promise<number> {
  const row = await app.database.db.selectFrom('change_log').select((eb) => eb.fn.countAll().as('n'))
    .where('resource_type', '=', 'variants').where('resource_id', '=', variantId).executeTakeFirstOrThrow()
  return Number(row.n)
}

for (const dialect of await testDialects()) {
  test(`${dialect}: request through MCP, decide through the admin API, execute once through MCP, replay by key`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    const variantId = app.ids.variants
    // One approval suffices for prices (the built-in policy asks for two).
    assert.equal((await app.upsertPolicy({ handle: 'prices', displayName: 'Prices', actionPattern: 'variant.setPrice', requiredApprovals: 1 })).statusCode, 200)
    const token = await app.token(AGENT_SCOPES)
    const mcp = await connect(app, token, { name: 'pricing-agent', version: '0.9.0' })
    const action = { actionType: 'variant.setPrice', payload: { variantId, price: 21 } }
    const before = { price: await price(app, variantId), changes: await variantChanges(app, variantId) }

    // Simulation: the same answer as the route, and it says an approval is needed.
    const simulated = structured(await mcp.call('simulate_action', action))
    const viaHttp = await app.post(`${CONTROL}/policy-simulate`, action, token)
    assert.deepEqual(simulated.data, viaHttp.json().data)
    assert.equal(simulated.data.decision, 'blocked')
    assert.equal(simulated.data.approval.required, true)

    // Without an approval, execution is recorded as blocked and writes nothing.
    const blocked = structured(await mcp.call('execute_action', { ...action, idempotencyKey: 'try-without-approval' })).data
    assert.equal(blocked.status, 'blocked')
    assert.equal(await price(app, variantId), before.price)

    const approval = structured(await mcp.call('request_approval', { ...action, reason: 'price match' })).data
    assert.equal(approval.status, 'pending')
    assert.deepEqual({ source: approval.metadata.source, agentId: approval.metadata.agentId, agentVersion: approval.metadata.agentVersion }, { source: 'mcp', agentId: 'pricing-agent', agentVersion: '0.9.0' })
    assert.match(approval.metadata.traceId, /^req_/)
    assert.equal(structured(await mcp.call('get_approval', { approvalId: approval.id })).data.status, 'pending')

    // The operator decides through the admin API.
    const decided = await app.app.inject({
      method: 'POST', url: `/gatehouse/admin/v1/control/approvals/${approval.id}/decide`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ decision: 'approve', reason: 'fine' }),
    })
    assert.equal(decided.statusCode, 200)
    const approved = structured(await mcp.call('get_approval', { approvalId: approval.id })).data
    assert.equal(approved.status, 'approved')
    assert.deepEqual(approved, (await app.get(`${CONTROL}/approvals?id=${approval.id}`, token)).json().data[0], 'get_approval = GET /control/approvals?id=')

    // The key is required, and named when missing.
    assert.deepEqual(toolErrorOf(await mcp.call('execute_action', { ...action, approvalId: approval.id })).details, [{ param: 'idempotencyKey', problem: "must have required property 'idempotencyKey'" }])

    const run = await mcp.call('execute_action', { ...action, approvalId: approval.id, idempotencyKey: 'price-21' })
    const execution = structured(run)
    assert.equal(execution.data.status, 'succeeded')
    assert.deepEqual(execution.meta, { replayed: false })
    assert.deepEqual(execution.data.metadata, { source: 'mcp', agentId: 'pricing-agent' })
    assert.equal(await price(app, variantId), 21)
    assert.equal(await variantChanges(app, variantId), before.changes + 1)

    // The same key and arguments: the stored execution, nothing runs again.
    const again = await mcp.call('execute_action', { ...action, approvalId: approval.id, idempotencyKey: 'price-21' })
    assert.deepEqual(structured(again).data, execution.data)
    assert.deepEqual(structured(again).meta, { replayed: true })
    assert.match((again.content[0] as { text: string }).text, /not run again/)
    assert.equal(await variantChanges(app, variantId), before.changes + 1)
    assert.equal(await app.count('control_executions'), 2, 'the blocked try and the one run')
    // The same key with other arguments is a conflict.
    assert.equal(toolErrorOf(await mcp.call('execute_action', { ...action, payload: { variantId, price: 25 }, idempotencyKey: 'price-21' })).code, 'CONFLICT')
    assert.equal(await price(app, variantId), 21)

    // The audit log says where the request and the execution came from.
    const audit = (await app.get(`${CONTROL}/audit?limit=200`, await app.token(['control:audit:read']))).json().data as { category: string; action: string; outcome: string; requestId: string; entity: { id: string } | null; metadata: Record<string, unknown> }[]
    const requested = audit.find((a) => a.category === 'approval' && a.action === 'request' && a.entity?.id === approval.id)
    assert.ok(requested)
    assert.deepEqual([requested.metadata.source, requested.metadata.agentId, requested.metadata.traceId], ['mcp', 'pricing-agent', approval.metadata.traceId])
    assert.equal(requested.requestId, approval.metadata.traceId)
    const executed = audit.filter((a) => a.category === 'execution')
    assert.deepEqual(executed.map((a) => [a.outcome, a.metadata.source, a.metadata.agentId]), [['blocked', 'mcp', 'pricing-agent'], ['success', 'mcp', 'pricing-agent']])
    assert.equal(executed[1].entity?.id, execution.data.id)
    await mcp.client.close()
  })
}
