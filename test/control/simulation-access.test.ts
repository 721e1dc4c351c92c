// Simulation is not a read oracle: simulating an action on a record reads it. Without the
// read scope of the action's family the answer is the 403 a read gives; a record the caller
// may not see (missing, in a status it may not read, outside an open run's read boundary) is
// the 404 or 403 reading it gives, so stored values (a variant's price and stock, an order's
// refundable amount) and which ids exist are never learnt through simulation. The same through
// the HTTP route and the MCP simulate_action tool.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects, type TestResponse } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { dataOf } from '../admin/helpers/admin-client.js'
import { jobsApp, type JobsApp } from '../jobs/helpers/jobs-app.js'
import { connect, structured, toolErrorOf } from '../mcp/helpers/mcp-client.js'

const V1 = '/gatehouse/v1'
const SIMULATE = ['control:actions:simulate', 'control:actions:execute']
const READS = ['variants:read', 'orders:read', 'entries:read']

const simulate = (app: JobsApp, token: string, actionType: string, payload: Record<string, unknown>) =>
  app.post(`${V1}/control/policy-simulate`, { actionType, payload }, token)

/** The same status and error as the read. */
function sameAsRead(sim: TestResponse, read: TestResponse, what: string) {
  assert.ok(read.statusCode === 403 || read.statusCode === 404, `${what}: the read itself is refused (${read.statusCode})`)
  assert.equal(sim.statusCode, read.statusCode, `${what}: ${sim.body}`)
  assert.deepEqual(sim.json().error, read.json().error, what)
}

for (const dialect of await testDialects()) {
  test(`${dialect}: simulating needs the read scope of the action's family, and a record the caller cannot read answers as its read does`, async (t) => {
    const app = await jobsApp(dialect, { env: { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' } })
    t.after(() => app.close())
    const { ids } = await seedSmallCatalog(app.services.store)
    const pending = Number((await app.database.db.selectFrom('entries').select('id').where('status', '=', 'pending').executeTakeFirstOrThrow()).id)
    const price = { variantId: ids.variants, price: 999 }
    const refund = { orderId: ids.orders, amount: 1 }

    // Only the control scopes: every simulation is the read's 403, whether the record exists
    // or not, and carries no stored value.
    const blind = await app.issueToken(SIMULATE)
    const cases: [string, Record<string, unknown>, string][] = [
      ['variant.setPrice', price, `${V1}/variants/show?id=${ids.variants}`],
      ['variant.adjustStock', { variantId: 999_999, delta: -1 }, `${V1}/variants/show?id=999999`],
      ['order.refund', refund, `${V1}/orders/show?id=${ids.orders}`],
      ['order.setStatus', { orderId: 999_999, status: 'shipped' }, `${V1}/orders/show?id=999999`],
      ['entry.updateDraft', { entryId: ids.entries, name: 'd1', title: 'X' }, `${V1}/entries/show?id=${ids.entries}`],
      ['entry.publishDraft', { draftId: 1 }, `${V1}/entries/show?id=${ids.entries}`],
    ]
    for (const [actionType, payload, read] of cases) {
      const sim = await simulate(app, blind, actionType, payload)
      sameAsRead(sim, await app.get(read, blind), actionType)
      assert.match(sim.json().error.message, /^Missing required scope: (variants|orders|entries):read$/)
      assert.doesNotMatch(sim.body, /actual|refundable|no \w+ record/)
    }

    // With the read scopes: the values a read shows anyway.
    const reader = await app.issueToken([...SIMULATE, ...READS])
    const seen = await simulate(app, reader, 'variant.setPrice', price)
    assert.equal(seen.statusCode, 200, seen.body)
    assert.deepEqual(seen.json().data.limits, [{ name: 'maxPriceChangePercent', source: 'policy', max: null, actual: 4895, ok: true, problem: null }])
    const refundable = await simulate(app, reader, 'order.refund', refund)
    assert.equal(refundable.statusCode, 200, refundable.body)
    assert.ok(refundable.json().data.limits.some((l: { name: string; max: number }) => l.name === 'refundable' && typeof l.max === 'number'))

    // A missing record and one the caller may not see (an entry in another status than live,
    // without entries:read_all_statuses) look the same: the 404 reading them gives.
    for (const [actionType, payload, read] of [
      ['variant.setPrice', { variantId: 999_999, price: 1 }, `${V1}/variants/show?id=999999`],
      ['order.refund', { orderId: 999_999, amount: 1 }, `${V1}/orders/show?id=999999`],
      ['entry.updateDraft', { entryId: 999_999, name: 'd1', title: 'X' }, `${V1}/entries/show?id=999999`],
      ['entry.updateDraft', { entryId: pending, name: 'd1', title: 'X' }, `${V1}/entries/show?id=${pending}`],
    ] as const) {
      const sim = await simulate(app, reader, actionType, payload)
      sameAsRead(sim, await app.get(read, reader), `${actionType} ${JSON.stringify(payload)}`)
      assert.equal(sim.statusCode, 404)
    }
    const allStatuses = await app.issueToken([...SIMULATE, ...READS, 'entries:read_all_statuses'])
    assert.equal((await simulate(app, allStatuses, 'entry.updateDraft', { entryId: pending, name: 'd1', title: 'X' })).statusCode, 200)

    // The MCP tool answers the same.
    const mcp = await connect(app, blind)
    t.after(() => mcp.client.close())
    const refused = toolErrorOf(await mcp.call('simulate_action', { actionType: 'variant.setPrice', payload: price }))
    assert.deepEqual([refused.code, refused.message], ['FORBIDDEN', 'Missing required scope: variants:read'])
    const readerMcp = await connect(app, reader)
    t.after(() => readerMcp.client.close())
    const hidden = toolErrorOf(await readerMcp.call('simulate_action', { actionType: 'entry.updateDraft', payload: { entryId: pending, name: 'd1', title: 'X' } }))
    assert.deepEqual([hidden.code, hidden.message], ['NOT_FOUND', `No entries record matches id=${pending}`])
  })

  test(`${dialect}: while a bounded run is open, simulating on a record outside the read boundary is the read's 403, over HTTP and MCP`, async (t) => {
    const app = await jobsApp(dialect, { env: { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' }, start: '2025-06-02T08:30:00Z' })
    t.after(() => app.close())
    const { ids } = await seedSmallCatalog(app.services.store)
    const [inside, outside] = (await app.database.db.selectFrom('products').select('id').orderBy('id').execute()).map((r) => Number(r.id))
    const variantOf = async (productId: number) => Number((await app.database.db.selectFrom('variants').select('id').where('product_id', '=', productId).orderBy('id').executeTakeFirstOrThrow()).id)
    const [vIn, vOut] = [await variantOf(inside), await variantOf(outside)]
    const w = await app.worker(['jobs:read', 'jobs:report', ...SIMULATE, ...READS])
    const wf = await app.define({ name: 'Shirts', credentialId: w.id, boundary: { sections: ['news'], entryIds: [], productIds: [inside] } })

    // Before the run: everything may be simulated (and read).
    assert.equal((await simulate(app, w.token, 'variant.setPrice', { variantId: vOut, price: 1 })).statusCode, 200)
    app.clock.set('2025-06-02T09:01:00Z')
    dataOf(await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'sync' }))

    assert.equal((await simulate(app, w.token, 'variant.setPrice', { variantId: vIn, price: 1 })).statusCode, 200, 'inside the boundary')
    const outsideVariant = await simulate(app, w.token, 'variant.setPrice', { variantId: vOut, price: 1 })
    sameAsRead(outsideVariant, await app.get(`${V1}/variants/show?id=${vOut}`, w.token), 'a variant of another product')
    assert.equal(outsideVariant.json().error.message, `variants ${vOut} is outside the read boundary of workflow "Shirts" (${wf.id}), which limits this credential's reads while its run is open`)
    sameAsRead(await simulate(app, w.token, 'order.refund', { orderId: ids.orders, amount: 1 }), await app.get(`${V1}/orders/show?id=${ids.orders}`, w.token), 'orders lie outside every boundary')
    // A draft of a new entry: its section is what the boundary names, existing or not.
    await app.services.store.create('sections', { handle: 'blog', name: 'Blog', type: 'channel', entryTypes: [{ handle: 'post', name: 'Post' }] })
    for (const section of ['blog', 'nowhere']) {
      const newDraft = await simulate(app, w.token, 'entry.updateDraft', { name: 'n1', section, type: 'post', title: 'T', slug: 't' })
      assert.equal(newDraft.statusCode, 403, newDraft.body)
      assert.equal(newDraft.json().error.message, `section ${section} is outside the read boundary of workflow "Shirts" (${wf.id}), which limits this credential's reads while its run is open`)
    }
    assert.equal((await simulate(app, w.token, 'entry.updateDraft', { name: 'n1', section: 'news', type: 'article', title: 'T', slug: 't' })).statusCode, 200)

    const mcp = await connect(app, w.token)
    t.after(() => mcp.client.close())
    const viaMcp = toolErrorOf(await mcp.call('simulate_action', { actionType: 'variant.setPrice', payload: { variantId: vOut, price: 1 } }))
    assert.deepEqual([viaMcp.code, viaMcp.message], ['FORBIDDEN', outsideVariant.json().error.message])
    assert.equal(structured(await mcp.call('simulate_action', { actionType: 'variant.setPrice', payload: { variantId: vIn, price: 1 } })).data.target.id, String(vIn))
  })
}

// Asking for approval and executing read what they name as simulation does: an approval carries
// the reviewed state (a draft's content) and a refused limit the stored values (an order's
// refundable amount). A credential with only control:approvals:request read both.
for (const dialect of await testDialects()) {
  test(`${dialect}: approval requests and executions read what they name as the caller first, over HTTP and MCP`, async (t) => {
    const app = await jobsApp(dialect, { env: { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' }, start: '2025-06-02T08:30:00Z' })
    t.after(() => app.close())
    const { ids } = await seedSmallCatalog(app.services.store)
    const pending = Number((await app.database.db.selectFrom('entries').select('id').where('status', '=', 'pending').executeTakeFirstOrThrow()).id)
    const draft = await app.services.store.create('entry-drafts', { entryId: pending, name: 'rev', section: 'news', type: 'article', title: 'Secret title', slug: 'secret-rev', fields: { body: 'secret body' } })
    const metadata = { source: 'test', agentId: 'agent', traceId: 'trace-1' }
    const ask = (token: string, actionType: string, payload: Record<string, unknown>) => app.post(`${V1}/control/approvals/request`, { actionType, payload, metadata }, token)
    const run = (token: string, actionType: string, payload: Record<string, unknown>, key: string) =>
      app.post(`${V1}/control/actions/execute`, { actionType, payload, metadata }, token, { 'Idempotency-Key': key })
    const REQUEST = ['control:approvals:request', 'control:actions:execute']

    const blind = await app.issueToken(REQUEST)
    for (const [actionType, payload] of [['order.refund', { orderId: ids.orders, amount: 999_999, reason: 'x' }], ['entry.publishDraft', { draftId: draft.id }]] as const) {
      for (const res of [await ask(blind, actionType, payload), await run(blind, actionType, payload, `k-${actionType}`)]) {
        assert.equal(res.statusCode, 403, res.body)
        assert.match(res.json().error.message, /^Missing required scope: (orders|entries):read$/)
        assert.doesNotMatch(res.body, /secret|refund \(|totalPaid/)
      }
    }
    // With entries:read but not the other statuses: the draft's entry is the read's 404, its content unseen.
    const reader = await app.issueToken([...REQUEST, ...READS])
    const hidden = await ask(reader, 'entry.publishDraft', { draftId: draft.id })
    assert.equal(hidden.statusCode, 404, hidden.body)
    assert.doesNotMatch(hidden.body, /secret/)
    const seesAll = await app.issueToken([...REQUEST, ...READS, 'entries:read_all_statuses'])
    const asked = await ask(seesAll, 'entry.publishDraft', { draftId: draft.id })
    assert.equal(asked.statusCode, 200, asked.body)
    assert.equal(asked.json().data.reviewedState.content.title, 'Secret title', 'a caller who may read it sees what it asks to change')

    // Outside an open run's read boundary: the read's 403.
    const w = await app.worker(['jobs:read', 'jobs:report', ...REQUEST, ...READS])
    const wf = await app.define({ name: 'Shirts', credentialId: w.id, boundary: { sections: ['news'], entryIds: [], productIds: [] } })
    app.clock.set('2025-06-02T09:01:00Z')
    dataOf(await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'sync' }))
    const outside = await ask(w.token, 'order.refund', { orderId: ids.orders, amount: 999_999, reason: 'x' })
    assert.equal(outside.statusCode, 403, outside.body)
    assert.match(outside.json().error.message, /outside the read boundary of workflow "Shirts"/)

    // The MCP tool answers as the route.
    const mcp = await connect(app, blind)
    t.after(() => mcp.client.close())
    const viaMcp = toolErrorOf(await mcp.call('request_approval', { actionType: 'order.refund', payload: { orderId: ids.orders, amount: 999_999, reason: 'x' } }))
    assert.deepEqual([viaMcp.code, viaMcp.message], ['FORBIDDEN', 'Missing required scope: orders:read'])
  })
}
