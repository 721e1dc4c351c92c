// Approvals inside the agent's call (2026-07-28): execute_action without the approval it
// needs answers an input-required result pointing at the approval's page; the operator
// decides through the admin API; the client's retry (with the signed request state) executes
// exactly once; the same idempotency key answers the stored execution. The state is bound to
// the credential, the call and an expiry, and is usable once whichever process gets it. A
// rejection is a tool error saying so; a 2025-11-25 client keeps the request/poll flow.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequestStateCodec } from '@modelcontextprotocol/server'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { siteSecret } from '../../src/store/meta.js'
import { payloadDigest } from '../../src/control/canonical-json.js'
import { testDialects, type TestApp } from '../helpers/test-app.js'
import { connect, structured, toolErrorOf } from './helpers/mcp-client.js'
import { connectModern } from './helpers/mcp-modern-client.js'
import { modernRequest, twoProcesses, type TwoProcesses } from './helpers/two-processes.js'
import { START_OVER } from '../../src/mcp/approval-round-trip.js'

const AGENT = ['control:approvals:request', 'control:approvals:read', 'control:actions:simulate', 'control:actions:execute', 'variants:read']

async function price(app: TestApp, variantId: number): Promise<number> {
  return (await app.get(`${BASE_PATH}/variants/show?id=${variantId}`, await app.issueToken(['variants:read']))).json().data.price as number
}

async function variantChanges(app: TestApp, variantId: number): Promise<number> {
  const row = await app.database.db.selectFrom('change_log').select((eb) => eb.fn.countAll().as('n'))
    .where('resource_type', '=', 'variants').where('resource_id', '=', variantId).executeTakeFirstOrThrow()
  return Number(row.n)
}

const approvalIdOf = (url: string) => decodeURIComponent(url.split('/').pop() as string)

async function decide(p: TwoProcesses, app: TestApp, url: string, decision: 'approve' | 'reject', reason: string) {
  const res = await p.admin(app, 'POST', `/control/approvals/${approvalIdOf(url)}/decide`, { decision, reason })
  assert.equal(res.statusCode, 200, JSON.stringify(res.json()))
}

for (const dialect of await testDialects()) {
  test(`${dialect}: input-required → decided in the admin API → the retry executes once; same key answers the stored execution; reused, expired and forged state refused`, async (t) => {
    const p = await twoProcesses(dialect)
    t.after(() => p.close())
    assert.equal((await p.admin(p.a, 'POST', '/control/policies/upsert', { handle: 'prices', displayName: 'Prices', actionPattern: 'variant.setPrice', requiredApprovals: 1 })).statusCode, 200)
    const token = await p.a.issueToken(AGENT)
    const variantId = p.ids.variants
    const before = await variantChanges(p.a, variantId)

    // The operator approves on the second process while the agent's call waits on the first.
    const agent = await connectModern(p.a, token, { name: 'pricing-agent', onApprovalPage: (url) => decide(p, p.b, url, 'approve', 'looks right') })
    const action = { actionType: 'variant.setPrice', payload: { variantId, price: 21 } }
    const run = structured(await agent.call('execute_action', { ...action, idempotencyKey: 'price-21' }))
    assert.equal(agent.asked.length, 1)
    assert.match(agent.asked[0].url, /^http:\/\/127\.0\.0\.1:8080\/gatehouse\/cp\/approvals\/apr_[A-Za-z0-9_-]+$/)
    assert.match(agent.asked[0].message, /is pending \(0 of 1 approvals\)/)
    assert.equal(run.data.status, 'succeeded')
    assert.equal(run.data.approvalId, approvalIdOf(agent.asked[0].url))
    assert.deepEqual(run.meta, { replayed: false })
    assert.equal(await price(p.a, variantId), 21)
    assert.equal(await variantChanges(p.a, variantId), before + 1, 'executed exactly once')
    const approval = (await p.a.get(`${BASE_PATH}/control/approvals?id=${run.data.approvalId}`, token)).json().data[0]
    assert.deepEqual([approval.status, approval.metadata.source, approval.metadata.agentId], ['consumed', 'mcp', 'pricing-agent'])

    // The same key, from another process: the stored execution, nothing runs again.
    const again = await connectModern(p.b, token, { name: 'pricing-agent', onApprovalPage: async () => assert.fail('no new approval is asked for') })
    const replay = structured(await again.call('execute_action', { ...action, idempotencyKey: 'price-21' }))
    assert.deepEqual(replay.data, run.data)
    assert.deepEqual(replay.meta, { replayed: true })
    assert.equal(await variantChanges(p.a, variantId), before + 1)

    // By hand: the state is answered, then used on one process and refused on the other.
    const second = { actionType: 'variant.setPrice', payload: { variantId, price: 22 } }
    const asked = await modernRequest(p.urls[0], token, 'tools/call', { name: 'execute_action', arguments: { ...second, idempotencyKey: 'price-22' } })
    assert.equal(asked.body.result.resultType, 'input_required')
    const { requestState, inputRequests } = asked.body.result
    assert.equal(inputRequests.approval.method, 'elicitation/create')
    assert.equal(inputRequests.approval.params.mode, 'url')
    await decide(p, p.a, inputRequests.approval.params.url, 'approve', 'ok')
    const retry = (host: string, args: Record<string, unknown> = second, key = 'price-22') =>
      modernRequest(host, token, 'tools/call', { name: 'execute_action', arguments: { ...args, idempotencyKey: key }, requestState, inputResponses: { approval: { action: 'accept' } } })
    const done = await retry(p.urls[1])
    assert.equal(done.body.result.structuredContent.data.status, 'succeeded', JSON.stringify(done.body))
    const reused = await retry(p.urls[0])
    assert.equal(reused.body.error?.code, -32602)
    assert.equal(reused.body.error?.message, 'Invalid or expired requestState: it was already used; call execute_action again without requestState and with the same idempotencyKey to read the execution')
    assert.equal(await variantChanges(p.a, variantId), before + 2)

    // Bound to the call: another payload or key with this state is refused.
    const third = await modernRequest(p.urls[0], token, 'tools/call', { name: 'execute_action', arguments: { actionType: 'variant.setPrice', payload: { variantId, price: 23 }, idempotencyKey: 'price-23' } })
    const stateFor23 = third.body.result.requestState as string
    const otherPayload = await modernRequest(p.urls[0], token, 'tools/call', { name: 'execute_action', arguments: { actionType: 'variant.setPrice', payload: { variantId, price: 999 }, idempotencyKey: 'price-23' }, requestState: stateFor23 })
    assert.match(otherPayload.body.error?.message ?? '', /issued for another actionType, payload or idempotencyKey/)
    // Bound to the credential: another credential's retry is refused by the signature's binding.
    const other = await p.a.issueToken(AGENT)
    const stolen = await modernRequest(p.urls[1], other, 'tools/call', { name: 'execute_action', arguments: { actionType: 'variant.setPrice', payload: { variantId, price: 23 }, idempotencyKey: 'price-23' }, requestState: stateFor23 })
    assert.deepEqual(stolen.body.error && [stolen.body.error.code, stolen.body.error.message, stolen.body.error.data], [-32602,
      `Invalid or expired requestState: it was issued to another credential or for another method; ${START_OVER}`, { reason: 'invalid_request_state' }])
    // What the refusal says to do works: the same call without the state asks for the other credential's own approval.
    const startedOver = await modernRequest(p.urls[1], other, 'tools/call', { name: 'execute_action', arguments: { actionType: 'variant.setPrice', payload: { variantId, price: 23 }, idempotencyKey: 'price-23' } })
    assert.equal(startedOver.body.result?.resultType, 'input_required', JSON.stringify(startedOver.body))
    assert.notEqual(startedOver.body.result.inputRequests.approval.params.url, third.body.result.inputRequests.approval.params.url)
    // Tampered: refused.
    const tampered = stateFor23.slice(0, -2) + (stateFor23.endsWith('AA') ? 'BB' : 'AA')
    const forged = await modernRequest(p.urls[1], token, 'tools/call', { name: 'execute_action', arguments: { actionType: 'variant.setPrice', payload: { variantId, price: 23 }, idempotencyKey: 'price-23' }, requestState: tampered })
    assert.deepEqual(forged.body.error && [forged.body.error.code, forged.body.error.message, forged.body.error.data], [-32602,
      `Invalid or expired requestState: it was not issued by this server, or it was altered; ${START_OVER}`, { reason: 'invalid_request_state' }])
    // Not a string at all: the SDK refuses it before any handler, with its own fixed words.
    const notText = await modernRequest(p.urls[1], token, 'tools/call', { name: 'execute_action', arguments: { actionType: 'variant.setPrice', payload: { variantId, price: 23 }, idempotencyKey: 'price-23' }, requestState: 42 })
    assert.deepEqual(notText.body.error && [notText.body.error.code, notText.body.error.message], [-32602, 'Invalid or expired requestState'])
    // No state is ever issued for resources/read: one sent there is refused, saying so.
    const onRead = await modernRequest(p.urls[0], token, 'resources/read', { uri: `gatehouse://records/variants/${variantId}`, requestState: stateFor23 })
    assert.match(onRead.body.error?.message ?? '', /^Invalid or expired requestState: resources\/read never asks for input; send it without requestState$/)
    // Nor by any tool but execute_action: a state sent with a read tool was ignored; now it is refused.
    const onList = await modernRequest(p.urls[0], token, 'tools/call', { name: 'get_variants', arguments: { id: variantId }, requestState: stateFor23 })
    assert.deepEqual(onList.body.error && [onList.body.error.code, onList.body.error.message, onList.body.error.data], [-32602,
      'Invalid or expired requestState: get_variants never asks for input; send it without requestState', { reason: 'invalid_request_state' }])
    assert.equal((await modernRequest(p.urls[0], token, 'tools/call', { name: 'get_variants', arguments: { id: variantId } })).body.result?.structuredContent?.data?.id, variantId, 'the same call without it answers')
    // A record that does not exist is an unknown resource (SEP-2164), with its URI.
    const missing = `gatehouse://records/variants/${variantId + 100_000}`
    const gone = await modernRequest(p.urls[0], token, 'resources/read', { uri: missing })
    assert.equal(gone.body.error?.code, -32602)
    assert.match(gone.body.error?.message ?? '', new RegExp(`^Unknown resource: ${missing}; `))
    assert.deepEqual(gone.body.error?.data, { uri: missing })
    // Expired: correctly signed with the site's key, but past its expiry.
    const credentialId = (await p.a.services.credentials.authenticate(token, '127.0.0.1')).credentialId
    const codec = createRequestStateCodec({ key: await siteSecret(p.a.database.db, 'mcp_request_state_secret'), bind: (ctx) => `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ''}` })
    const expiredState = await codec.mint({
      sid: 'expired-1', approvalId: 'apr_x', actionType: 'variant.setPrice', payloadDigest: payloadDigest({ variantId, price: 23 }), idempotencyKey: 'price-23', credentialId, expiresAt: Date.now() - 1000,
    }, { mcpReq: { method: 'tools/call' }, http: { authInfo: { clientId: credentialId } } } as never)
    const expired = await modernRequest(p.urls[0], token, 'tools/call', { name: 'execute_action', arguments: { actionType: 'variant.setPrice', payload: { variantId, price: 23 }, idempotencyKey: 'price-23' }, requestState: expiredState })
    assert.ok(expired.body.error?.message.startsWith('Invalid or expired requestState: it expired at '), expired.body.error?.message)
    assert.ok(expired.body.error?.message.endsWith(`; ${START_OVER}`), 'the refusal says what to do')
    assert.equal(await price(p.a, variantId), 22, 'nothing of the refused retries ran')
    await Promise.all([agent.client.close(), again.client.close()])
  })
}

test('a rejected approval answers a tool error saying so; nothing runs', async (t) => {
  const p = await twoProcesses('sqlite')
  t.after(() => p.close())
  assert.equal((await p.admin(p.a, 'POST', '/control/policies/upsert', { handle: 'prices', displayName: 'Prices', actionPattern: 'variant.setPrice', requiredApprovals: 1 })).statusCode, 200)
  const token = await p.a.issueToken(AGENT)
  const before = await price(p.a, p.ids.variants)
  const agent = await connectModern(p.a, token, { onApprovalPage: (url) => decide(p, p.b, url, 'reject', 'too cheap') })
  const refused = toolErrorOf(await agent.call('execute_action', { actionType: 'variant.setPrice', payload: { variantId: p.ids.variants, price: 1 }, idempotencyKey: 'cheap' }))
  assert.equal(refused.code, 'CONFLICT')
  assert.match(refused.message, /^Approval apr_\S+ was rejected by admin \S+: too cheap; nothing was executed$/)
  assert.equal(await price(p.a, p.ids.variants), before)
  await agent.client.close()
})

test('2025-11-25 clients keep the request/poll flow: no input-required result, a blocked execution as before', async (t) => {
  const p = await twoProcesses('sqlite')
  t.after(() => p.close())
  assert.equal((await p.admin(p.a, 'POST', '/control/policies/upsert', { handle: 'prices', displayName: 'Prices', actionPattern: 'variant.setPrice', requiredApprovals: 1 })).statusCode, 200)
  const legacy = await connect(p.a, await p.a.issueToken(AGENT))
  const blocked = structured(await legacy.call('execute_action', { actionType: 'variant.setPrice', payload: { variantId: p.ids.variants, price: 5 }, idempotencyKey: 'legacy' })).data
  assert.equal(blocked.status, 'blocked')
  assert.match(blocked.reasons[0], /requires approval/)
  // A 2026-07-28 client that cannot open a URL gets the same.
  const noUrl = await connectModern(p.b, await p.a.issueToken(AGENT), { elicitation: false })
  assert.equal(structured(await noUrl.call('execute_action', { actionType: 'variant.setPrice', payload: { variantId: p.ids.variants, price: 5 }, idempotencyKey: 'no-url' })).data.status, 'blocked')
  await Promise.all([legacy.client.close(), noUrl.client.close()])
})
