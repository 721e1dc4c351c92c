// /changes with types named: each needs its own read scope, or the answer is 403 naming it
// (an empty page would tell a sync worker that nothing ever changes); a cursor keeps its
// types, so another `types` with it is a 400, and a scope lost mid-sync is a 403 on the next
// page. Without types the feed covers the types the caller can read.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'

test('types named without their read scope are a 403 naming it; unnamed, the readable types are served', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const { store } = app.services
  await store.create('sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'article', name: 'Article' }] })
  await store.create('entries', { section: 'news', type: 'article', title: 'Hello', slug: 'hello' })
  await store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
  const token = await app.issueToken(['changes:read', 'products:read'])

  for (const types of ['entries', 'products,entries']) {
    const res = await app.get(`/gatehouse/v1/changes?types=${types}`, token)
    assert.equal(res.statusCode, 403, types)
    assert.deepEqual(res.json().error, { code: 'FORBIDDEN', message: 'Missing required scope: entries:read' })
  }
  // Unknown types are a 400 before any scope is considered.
  assert.equal((await app.get('/gatehouse/v1/changes?types=entries,widgets', token)).statusCode, 400)

  const all = (await app.get('/gatehouse/v1/changes', token)).json()
  assert.deepEqual(all.meta.types, ['products'])
  assert.deepEqual(all.data.map((c: { resourceType: string }) => c.resourceType), ['products'])
  const named = await app.get('/gatehouse/v1/changes?types=products', token)
  assert.equal(named.statusCode, 200)
  assert.deepEqual(named.json().data.map((c: { resourceType: string }) => c.resourceType), ['products'])
})

test('a cursor keeps its types: other types with it are a 400; a scope lost mid-sync is a 403 on the next page', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const { store, credentials } = app.services
  for (const slug of ['a', 'b', 'c']) await store.create('products', { type: 'mug', title: slug, slug })
  const { credential, token } = await credentials.create({ label: 'sync', scopes: ['changes:read', 'products:read', 'variants:read'] })

  const first = (await app.get('/gatehouse/v1/changes?types=products&limit=1', token)).json()
  const cursor = encodeURIComponent(first.pagination.nextCursor)
  for (const types of ['variants', 'products,variants']) {
    const res = await app.get(`/gatehouse/v1/changes?types=${types}&cursor=${cursor}`, token)
    assert.equal(res.statusCode, 400, types)
    assert.deepEqual(res.json().error.details, [{ param: 'types', problem: 'the cursor belongs to types products; repeat them or leave types out' }])
  }
  assert.equal((await app.get(`/gatehouse/v1/changes?types=products&cursor=${cursor}`, token)).statusCode, 200)

  await credentials.update(credential.id, { scopes: ['changes:read', 'variants:read'] })
  const next = await app.get(`/gatehouse/v1/changes?cursor=${cursor}`, token)
  assert.equal(next.statusCode, 403)
  assert.equal(next.json().error.message, 'Missing required scope: products:read')
})
