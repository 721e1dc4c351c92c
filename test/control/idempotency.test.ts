// POST /control/actions/execute needs an Idempotency-Key. Per credential, the same key with
// the same body answers the stored execution without writing again; with another body it
// is 409 CONFLICT. Concurrent requests with one key write once.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { AGENT_SCOPES, CONTROL, controlApp, openPolicy } from './helpers/control-app.js'

test('the header is required and checked', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const agent = await app.token(AGENT_SCOPES)
  const body = { actionType: 'order.setStatus', payload: { orderId: app.ids.orders, status: 'shipped' } }
  const missing = await app.post(`${CONTROL}/actions/execute`, body, agent)
  assert.equal(missing.statusCode, 400)
  assert.equal(missing.json().error.details[0].param, 'Idempotency-Key')
  const bad = await app.execute(agent, body, 'has spaces')
  assert.equal(bad.statusCode, 400)
  assert.equal(bad.json().error.details[0].param, 'Idempotency-Key')
  assert.equal(await app.count('control_executions'), 0)
})

for (const dialect of await testDialects()) {
  test(`${dialect}: same key and body → the stored execution, no second write; another body → 409; keys are per credential`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    await app.upsertPolicy(openPolicy('open', '*'))
    const agent = await app.token(AGENT_SCOPES)
    const variantId = app.ids.variants
    const body = { actionType: 'variant.adjustStock', payload: { variantId, delta: 5 }, metadata: { traceId: 't-1' } }
    const changes = await app.count('change_log')

    const first = await app.execute(agent, body, 'restock-1')
    assert.equal(first.json().data.status, 'succeeded')
    assert.equal(first.json().meta.replayed, false)
    assert.equal(first.json().data.idempotencyKey, 'restock-1')
    assert.deepEqual(first.json().data.metadata, { traceId: 't-1' })
    const writes = await app.count('change_log') - changes

    // The same body, its keys in another order, is the same request.
    const again = await app.execute(agent, { metadata: { traceId: 't-1' }, payload: { delta: 5, variantId }, actionType: 'variant.adjustStock' }, 'restock-1')
    assert.equal(again.statusCode, 200)
    assert.equal(again.json().data.id, first.json().data.id)
    assert.equal(again.json().meta.replayed, true)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.deepEqual(again.json().data, first.json().data)
    assert.equal((await app.services.store.get('variants', variantId))?.stock, 8, 'stock moved once')
    assert.equal(await app.count('change_log') - changes, writes)

    const conflict = await app.execute(agent, { ...body, payload: { variantId, delta: 6 } }, 'restock-1')
    assert.equal(conflict.statusCode, 409)
    assert.equal(conflict.json().error.code, 'CONFLICT')
    assert.match(conflict.json().error.message, /already used with a different body/)
    assert.equal((await app.services.store.get('variants', variantId))?.stock, 8)

    const otherCredential = await app.execute(await app.token(AGENT_SCOPES), body, 'restock-1')
    assert.notEqual(otherCredential.json().data.id, first.json().data.id)
    assert.equal((await app.services.store.get('variants', variantId))?.stock, 13)
    assert.equal(await app.count('control_executions'), 2)
  })

  test(`${dialect}: concurrent requests with one key write once and answer the same execution`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    await app.upsertPolicy(openPolicy('open', '*'))
    const agent = await app.token(AGENT_SCOPES)
    const body = { actionType: 'variant.adjustStock', payload: { variantId: app.ids.variants, delta: 1 } }
    const answers = await Promise.all(Array.from({ length: 5 }, () => app.execute(agent, body, 'same-key')))
    assert.deepEqual(answers.map((a) => a.statusCode), [200, 200, 200, 200, 200])
    assert.equal(new Set(answers.map((a) => a.json().data.id)).size, 1)
    assert.equal(answers.filter((a) => a.json().meta.replayed === false).length, 1)
    assert.equal((await app.services.store.get('variants', app.ids.variants))?.stock, 4)
    assert.equal(await app.count('control_executions'), 1)
    const audit = (await app.get(`${CONTROL}/audit?category=execution`, await app.token(['control:audit:read']))).json().data
    assert.equal(audit.length, 1)
  })
}

test('a blocked execution is stored under its key too; a new key runs the action once it is allowed', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const agent = await app.token(AGENT_SCOPES)
  const body = { actionType: 'order.setStatus', payload: { orderId: app.ids.orders, status: 'shipped' } }
  const blocked = await app.execute(agent, body, 'ship-1')
  assert.equal(blocked.json().data.status, 'blocked')
  await app.upsertPolicy(openPolicy('open', '*'))
  const same = await app.execute(agent, body, 'ship-1')
  assert.equal(same.json().data.status, 'blocked')
  assert.equal(same.json().data.id, blocked.json().data.id)
  const fresh = await app.execute(agent, body, 'ship-2')
  assert.equal(fresh.json().data.status, 'succeeded')
})
