// Boundaries: a credential limited to sections, entry ids or product ids may request and
// execute actions only inside them (a variant counts as its product; orders lie outside
// every boundary). Refusals are 403 FORBIDDEN, write nothing and are audited; simulation
// reports them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { AGENT_SCOPES, CONTROL, controlApp, openPolicy } from './helpers/control-app.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: sections, entry ids and product ids bound what a credential may request and execute`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    await app.upsertPolicy(openPolicy('open', '*'))
    await app.services.store.create('sections', { handle: 'docs', name: 'Docs', type: 'channel' })
    const other = await app.services.store.create('entries', { section: 'docs', type: 'page', title: 'Manual', slug: 'manual' })
    const news = await app.token(AGENT_SCOPES, { boundaries: { sections: ['news'] } })
    const oneEntry = await app.token(AGENT_SCOPES, { boundaries: { entryIds: [other.id] } })
    const oneProduct = await app.token(AGENT_SCOPES, { boundaries: { productIds: [app.ids.products] } })
    const draft = (entryId: number) => ({ actionType: 'entry.updateDraft', payload: { entryId, name: 'b', title: 'Bounded' } })

    // Sections.
    assert.equal((await app.execute(news, draft(app.ids.entries))).json().data.status, 'succeeded')
    const outside = await app.execute(news, draft(other.id as number))
    assert.equal(outside.statusCode, 403)
    assert.equal(outside.json().error.message, `Action refused: entry ${other.id} in section docs is outside the credential's boundaries`)
    const newInDocs = await app.execute(news, { actionType: 'entry.updateDraft', payload: { name: 'n', section: 'docs', type: 'page', title: 'T', slug: 't' } })
    assert.equal(newInDocs.statusCode, 403)
    const requested = await app.request(news, 'entry.updateDraft', { entryId: other.id, name: 'b', title: 'x' })
    assert.equal(requested.statusCode, 403)
    assert.match(requested.json().error.message, /^Approval request refused: entry \d+ in section docs is outside/)

    // Entry ids.
    assert.equal((await app.execute(oneEntry, draft(other.id as number))).json().data.status, 'succeeded')
    assert.equal((await app.execute(oneEntry, draft(app.ids.entries))).statusCode, 403)

    // Product ids: a variant counts as its product; orders are outside every boundary.
    const giftVariant = (await app.database.db.selectFrom('variants').select('id').where('sku', '=', 'GIFT').executeTakeFirstOrThrow()).id as number
    assert.equal((await app.execute(oneProduct, { actionType: 'variant.setPrice', payload: { variantId: app.ids.variants, price: 21 } })).json().data.status, 'succeeded')
    const gift = await app.execute(oneProduct, { actionType: 'variant.setPrice', payload: { variantId: giftVariant, price: 1 } })
    assert.equal(gift.statusCode, 403)
    assert.equal((await app.services.store.get('variants', giftVariant))?.price, 50)
    const order = await app.execute(oneProduct, { actionType: 'order.setStatus', payload: { orderId: app.ids.orders, status: 'shipped' } })
    assert.equal(order.statusCode, 403)
    assert.equal((await app.services.store.get('orders', app.ids.orders))?.status, 'processing')
    // An unbounded credential is not limited.
    assert.equal((await app.execute(await app.token(AGENT_SCOPES), { actionType: 'variant.setPrice', payload: { variantId: giftVariant, price: 45 } })).json().data.status, 'succeeded')

    const sim = (await app.post(`${CONTROL}/policy-simulate`, { actionType: 'variant.setPrice', payload: { variantId: giftVariant, price: 1 } }, oneProduct)).json().data
    assert.equal(sim.decision, 'forbidden')
    assert.deepEqual(sim.boundaries, { bounded: true, allowed: false, problem: `product ${app.ids.products + 1} is outside the credential's boundaries` })

    const denied = (await app.get(`${CONTROL}/audit?outcome=denied`, await app.token(['control:audit:read']))).json().data
    assert.deepEqual(denied.map((a: { category: string; action: string }) => `${a.category}:${a.action}`),
      ['execution:execute', 'execution:execute', 'approval:request', 'execution:execute', 'execution:execute', 'execution:execute'])
    // Refusals write no execution: only the allowed ones were recorded.
    assert.equal(await app.count('control_executions'), 4)
  })
}
