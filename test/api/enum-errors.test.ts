// A value outside an enumeration is a 400 that lists the allowed values, for query
// parameters and body fields alike, instead of Ajv's "must be equal to constant".
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'

test('enumerated parameters and body fields name the allowed values', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['products:read', 'orders:read', 'webhooks:dlq:read', 'syncstate:write', 'changes:read'])
  const problem = async (url: string, body?: unknown) => {
    const res = body === undefined ? await app.get(url, token) : await app.post(url, body, token)
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`)
    assert.equal(res.json().error.code, 'INVALID_REQUEST')
    return res.json().error.details
  }
  assert.deepEqual(await problem('/gatehouse/v1/products?sort=price'),
    [{ param: 'sort', problem: 'must be one of: updatedAt, -updatedAt, createdAt, -createdAt, title, -title' }])
  assert.deepEqual(await problem('/gatehouse/v1/products?status=published'),
    [{ param: 'status', problem: 'must be one of: live, pending, disabled, expired, all' }])
  assert.deepEqual(await problem('/gatehouse/v1/products?lowStock=maybe'),
    [{ param: 'lowStock', problem: 'must be one of: true, false, 1, 0, yes, no, on, off' }])
  assert.deepEqual(await problem('/gatehouse/v1/webhooks/dlq?status=lost'), [{ param: 'status', problem: 'must be one of: failed, queued' }])
  // Every bad parameter is named, each with its own list.
  const byParam = (d: { param: string }[]) => [...d].sort((a, b) => a.param.localeCompare(b.param))
  assert.deepEqual(byParam(await problem('/gatehouse/v1/products?sort=price&status=published&limit=0')), [
    { param: 'limit', problem: 'must be >= 1' },
    { param: 'sort', problem: 'must be one of: updatedAt, -updatedAt, createdAt, -createdAt, title, -title' },
    { param: 'status', problem: 'must be one of: live, pending, disabled, expired, all' },
  ])
  const [resourceType] = await problem('/gatehouse/v1/sync-state/checkpoint', { resourceType: 'widgets' })
  assert.equal(resourceType.param, 'resourceType')
  assert.match(resourceType.problem, /^must be one of: products, variants, subscriptions, transfers, donations, orders, entries, /)
})
