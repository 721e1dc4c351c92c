// Orders by status: the statuses are declared (and so documented and validated), `all` means
// every order, an unknown status is a 400 listing the valid ones, carts (orders not placed
// yet) are left out unless asked for (isCompleted=false or any status), and lastDays counts
// whole days back from now.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { ORDER_STATUSES } from '../../src/resources/commerce.js'

const DAY = 86_400_000

for (const dialect of await testDialects()) {
  test(`${dialect}: order statuses, all, carts and lastDays`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    const { store } = app.services
    const order = (n: string, status: string, extra: Record<string, unknown>) =>
      store.create('orders', { number: n.repeat(32), currency: 'EUR', status, ...extra })
    await order('a', 'completed', { isCompleted: true, dateOrdered: new Date(Date.now() - 2 * DAY).toISOString() })
    await order('b', 'shipped', { isCompleted: true, dateOrdered: new Date(Date.now() - 10 * DAY).toISOString() })
    await order('c', 'cart', { isCompleted: false })
    const token = await app.issueToken(['orders:read'])
    const numbers = async (q: string) => {
      const res = await app.get(`/gatehouse/v1/orders?fields=number&${q}`, token)
      assert.equal(res.statusCode, 200, `${q}: ${res.body}`)
      return res.json().data.map((o: { number: string }) => o.number[0]).sort().join('')
    }
    assert.equal(await numbers(''), 'ab', 'carts are left out by default')
    assert.equal(await numbers('status=all'), 'abc', 'all means every order')
    assert.equal(await numbers('isCompleted=false'), 'c')
    assert.equal(await numbers('isCompleted=true'), 'ab')
    assert.equal(await numbers('status=all&isCompleted=no'), 'c')
    assert.equal(await numbers('status=shipped'), 'b')
    assert.equal(await numbers('status=cart'), 'c', 'a status is an explicit choice: carts too')
    assert.equal(await numbers('lastDays=5'), 'a')
    assert.equal(await numbers('lastDays=30'), 'ab')

    const unknown = await app.get('/gatehouse/v1/orders?status=paid', token)
    assert.equal(unknown.statusCode, 400)
    assert.deepEqual(unknown.json().error.details, [{ param: 'status', problem: `must be one of: ${[...ORDER_STATUSES, 'all'].join(', ')}` }])
    for (const q of ['lastDays=0', 'lastDays=1.5', 'lastDays=3651', 'isCompleted=maybe']) {
      assert.equal((await app.get(`/gatehouse/v1/orders?${q}`, token)).statusCode, 400, q)
    }
    // Writes keep to the same statuses.
    await assert.rejects(order('d', 'paid', {}), { code: 'INVALID_REQUEST' })
  })
}

test('the contract documents order statuses, isCompleted and lastDays', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const doc = (await app.get('/gatehouse/v1/openapi.json', await app.issueToken(['openapi:read']))).json()
  const params = Object.fromEntries(doc.paths['/orders'].get.parameters.map((p: { name: string; schema: unknown; description?: string }) => [p.name, p]))
  assert.deepEqual(params.status.schema.enum ?? params.status.schema.anyOf.map((x: { const: string }) => x.const), [...ORDER_STATUSES, 'all'])
  assert.match(params.isCompleted.description, /Without it and without status, carts are left out/)
  assert.deepEqual([params.lastDays.schema.type, params.lastDays.schema.minimum, params.lastDays.schema.maximum], ['integer', 1, 3650])
  assert.match(params.lastDays.description, /whole days/)
})
