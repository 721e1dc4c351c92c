// Each governed action writes through the content store's write service: the record
// changes, the change log records it and (for entries, products and orders) a webhook
// delivery is queued in the same transaction. entry.updateDraft only ever writes a draft.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { AGENT_SCOPES, CONTROL, controlApp, openPolicy, type ControlApp } from './helpers/control-app.js'

const WEBHOOKS = { PLUGIN_GATEHOUSE_WEBHOOK_URL: 'http://127.0.0.1:9/hooks', PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'control-test-secret' }

async function changesAfter(app: ControlApp, seq: number) {
  const rows = await app.database.db.selectFrom('change_log').select(['seq', 'resource_type', 'resource_id', 'action']).where('seq', '>', seq).orderBy('seq').execute()
  return rows.map((r) => `${r.resource_type}:${Number(r.resource_id)}:${r.action}`)
}

async function lastSeq(app: ControlApp): Promise<number> {
  const row = await app.database.db.selectFrom('change_log').select((eb) => eb.fn.max('seq').as('s')).executeTakeFirst()
  return Number(row?.s ?? 0)
}

async function deliveriesAfter(app: ControlApp, seq: number) {
  const rows = await app.database.db.selectFrom('webhook_deliveries').select(['resource_type', 'resource_id', 'action']).where('change_seq', '>', seq).orderBy('id').execute()
  return rows.map((r) => `${r.resource_type}:${Number(r.resource_id)}:${r.action}`)
}

for (const dialect of await testDialects()) {
  test(`${dialect}: commerce actions write the record, its change log entries and webhook deliveries`, async (t) => {
    const app = await controlApp(dialect, WEBHOOKS)
    t.after(() => app.close())
    await app.upsertPolicy(openPolicy('open', '*'))
    const agent = await app.token(AGENT_SCOPES)
    const { variants: variantId, orders: orderId, products: productId } = app.ids

    let seq = await lastSeq(app)
    const price = await app.execute(agent, { actionType: 'variant.setPrice', payload: { variantId, price: 24.5 } })
    assert.equal(price.statusCode, 200, price.body)
    assert.equal(price.json().data.status, 'succeeded')
    assert.deepEqual(price.json().data.result, { variantId, productId, previousPrice: 20, price: 24.5 })
    assert.equal((await app.services.store.get('variants', variantId))?.price, 24.5)
    // The product's variant summary and default price follow, as for any write.
    assert.equal((await app.services.store.get('products', productId))?.defaultPrice, 24.5)
    assert.deepEqual(await changesAfter(app, seq), [`variants:${variantId}:updated`, `products:${productId}:updated`])
    assert.deepEqual(await deliveriesAfter(app, seq), [`product:${productId}:updated`])

    seq = await lastSeq(app)
    const stock = await app.execute(agent, { actionType: 'variant.adjustStock', payload: { variantId, delta: -2 } })
    assert.deepEqual(stock.json().data.result, { variantId, productId, previousStock: 3, stock: 1 })
    assert.equal((await app.services.store.get('products', productId))?.totalStock, 1)
    assert.deepEqual(await changesAfter(app, seq), [`variants:${variantId}:updated`, `products:${productId}:updated`])

    const floor = await app.execute(agent, { actionType: 'variant.adjustStock', payload: { variantId, delta: -2 } })
    assert.equal(floor.json().data.status, 'blocked')
    assert.deepEqual(floor.json().data.reasons, ['stock would fall to -1; it may not go below 0 unless the policy sets allowNegativeStock'])
    await app.upsertPolicy(openPolicy('stock', 'variant.adjustStock', { limits: { allowNegativeStock: true } }))
    const backorder = await app.execute(agent, { actionType: 'variant.adjustStock', payload: { variantId, delta: -2 } })
    assert.equal(backorder.json().data.result.stock, -1)
    const zero = await app.execute(agent, { actionType: 'variant.adjustStock', payload: { variantId, delta: 0 } })
    assert.equal(zero.statusCode, 400)
    assert.equal(zero.json().error.details[0].param, 'payload.delta')

    seq = await lastSeq(app)
    const status = await app.execute(agent, { actionType: 'order.setStatus', payload: { orderId, status: 'shipped' } })
    assert.deepEqual(status.json().data.result, { orderId, previousStatus: 'processing', status: 'shipped' })
    assert.deepEqual(await changesAfter(app, seq), [`orders:${orderId}:updated`])
    assert.deepEqual(await deliveriesAfter(app, seq), [`order:${orderId}:updated`])

    const refund = await app.execute(agent, { actionType: 'order.refund', payload: { orderId, amount: 40 } })
    assert.deepEqual(refund.json().data.result, { orderId, previousTotalRefunded: 0, totalRefunded: 40, refundable: 2, paidStatus: 'paid' })
    const over = await app.execute(agent, { actionType: 'order.refund', payload: { orderId, amount: 2.01 } })
    assert.equal(over.json().data.status, 'blocked')
    assert.deepEqual(over.json().data.reasons, ['2.01 exceeds what is left to refund (2 = totalPaid − totalRefunded)'])
    const rest = await app.execute(agent, { actionType: 'order.refund', payload: { orderId, amount: 2 } })
    assert.equal(rest.json().data.result.paidStatus, 'refunded')
    assert.equal((await app.services.store.get('orders', orderId))?.totalRefunded, 42)
  })

  test(`${dialect}: entry.updateDraft writes only a draft (no entry change, no feed type, no webhook); entry.publishDraft applies it`, async (t) => {
    const app = await controlApp(dialect, WEBHOOKS)
    t.after(() => app.close())
    await app.upsertPolicy(openPolicy('open', 'entry.*'))
    const agent = await app.token(AGENT_SCOPES)
    const reader = await app.token(['entries:read', 'changes:read'])
    const entryId = app.ids.entries
    const entryBefore = await app.services.store.get('entries', entryId)
    const feedBefore = (await app.get('/gatehouse/v1/changes?limit=200', reader)).json().data.length

    let seq = await lastSeq(app)
    const draft = await app.execute(agent, { actionType: 'entry.updateDraft', payload: { entryId, name: 'revision', title: 'Hello again', fields: { body: 'Second post' } } })
    assert.equal(draft.json().data.status, 'succeeded', draft.body)
    const { draftId } = draft.json().data.result
    assert.deepEqual(draft.json().data.result, { draftId, entryId, name: 'revision', created: true, title: 'Hello again', slug: 'hello-world' })
    const stored = await app.services.store.get('entry-drafts', draftId)
    assert.equal(stored?.section, 'news')
    assert.deepEqual(stored?.fields, { body: 'Second post' })
    assert.match(String(stored?.creatorId), /^credential:cred_/)
    assert.deepEqual(await app.services.store.get('entries', entryId), entryBefore, 'the entry is untouched')
    assert.deepEqual(await changesAfter(app, seq), [`entrydrafts:${draftId}:created`])
    assert.deepEqual(await deliveriesAfter(app, seq), [], 'drafts emit no webhook')
    assert.equal((await app.get('/gatehouse/v1/changes?limit=200', reader)).json().data.length, feedBefore, 'drafts are not in the change feed')
    assert.equal((await app.get(`/gatehouse/v1/entries/show?id=${entryId}`, reader)).json().data.title, 'Hello world')

    // The same name updates the same draft.
    const again = await app.execute(agent, { actionType: 'entry.updateDraft', payload: { entryId, name: 'revision', slug: 'hello-again' } })
    assert.deepEqual([again.json().data.result.draftId, again.json().data.result.created, again.json().data.result.slug], [draftId, false, 'hello-again'])

    seq = await lastSeq(app)
    const publish = await app.execute(agent, { actionType: 'entry.publishDraft', payload: { draftId } })
    assert.deepEqual(publish.json().data.result, { entryId, draftId, created: false })
    const entry = await app.services.store.get('entries', entryId)
    assert.deepEqual([entry?.title, entry?.slug, entry?.fields], ['Hello again', 'hello-again', { body: 'Second post' }])
    assert.equal(await app.services.store.get('entry-drafts', draftId), undefined, 'the draft is used up')
    assert.deepEqual(await changesAfter(app, seq), [`entries:${entryId}:updated`, `entrydrafts:${draftId}:deleted`])
    assert.deepEqual(await deliveriesAfter(app, seq), [`entry:${entryId}:updated`])

    // A draft of a new entry creates it when published.
    const fresh = await app.execute(agent, { actionType: 'entry.updateDraft', payload: { name: 'launch', section: 'news', type: 'article', title: 'Launch', slug: 'launch' } })
    assert.equal(fresh.json().data.result.entryId, null)
    const incomplete = await app.execute(agent, { actionType: 'entry.updateDraft', payload: { name: 'other', title: 'No section' } })
    assert.equal(incomplete.statusCode, 400)
    assert.deepEqual(incomplete.json().error.details.map((d: { param: string }) => d.param), ['payload.section', 'payload.type', 'payload.slug'])
    // Its type is one of the section's entry types, as the entry published from it must have.
    const typo = await app.execute(agent, { actionType: 'entry.updateDraft', payload: { name: 'typo', section: 'news', type: 'artcle', title: 'Typo', slug: 'typo' } })
    assert.equal(typo.statusCode, 400, typo.body)
    assert.deepEqual(typo.json().error.details, [{ param: 'payload.type', problem: "must be one of section news's entry types: article" }])
    const created = await app.execute(agent, { actionType: 'entry.publishDraft', payload: { draftId: fresh.json().data.result.draftId } })
    assert.equal(created.json().data.result.created, true)
    const newEntry = (await app.get('/gatehouse/v1/entries/show?slug=launch', reader)).json().data
    assert.deepEqual([newEntry.id, newEntry.title, newEntry.status, newEntry.section], [created.json().data.result.entryId, 'Launch', 'live', 'news'])
  })
}

test('executions list: the caller sees its own; deciders and audit readers see all; filters and cursors', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  await app.upsertPolicy(openPolicy('open', '*'))
  const a = await app.token(AGENT_SCOPES)
  const b = await app.token(AGENT_SCOPES)
  const ids: string[] = []
  for (const status of ['pending', 'shipped', 'completed']) ids.push((await app.execute(a, { actionType: 'order.setStatus', payload: { orderId: app.ids.orders, status } })).json().data.id)
  const bId = (await app.execute(b, { actionType: 'order.setStatus', payload: { orderId: app.ids.orders, status: 'refunded' } })).json().data.id
  assert.deepEqual((await app.get(`${CONTROL}/executions`, b)).json().data.map((e: { id: string }) => e.id), [bId])
  const reader = await app.token(['control:executions:read', 'control:audit:read'])
  const first = (await app.get(`${CONTROL}/executions?limit=2&actionType=order.setStatus`, reader)).json()
  assert.deepEqual(first.data.map((e: { id: string }) => e.id), [bId, ids[2]])
  const next = (await app.get(`${CONTROL}/executions?limit=2&actionType=order.setStatus&cursor=${first.pagination.nextCursor}`, reader)).json()
  assert.deepEqual(next.data.map((e: { id: string }) => e.id), [ids[1], ids[0]])
  assert.equal(next.pagination.hasMore, false)
  assert.deepEqual((await app.get(`${CONTROL}/executions?status=blocked`, reader)).json().data, [])
})
