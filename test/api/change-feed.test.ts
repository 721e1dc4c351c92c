// /changes: sequence order, types, cursors that keep their types, snapshots projected by
// fields, tombstones, scope-filtered types, 410 past retention, and a follower that polls
// from the end never misses a change.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { pruneChanges } from '../../src/store/change-log.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: the feed pages in sequence order with snapshots and tombstones`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      const store = app.services.store
      const p = await store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
      const v = await store.create('variants', { productId: p.id, sku: 'MUG', title: 'Mug', price: 9, stock: 4 })
      await store.create('tags', { group: 'g', title: 'T', slug: 't' })
      await store.update('products', p.id as number, { title: 'Mug 2' })
      await store.remove('variants', v.id as number)
      const token = await app.issueToken(['changes:read', 'products:read', 'variants:read'])
      const res = await app.get('/gatehouse/v1/changes?fields=id,title,sku', token)
      assert.equal(res.statusCode, 200)
      const items = res.json().data
      // tags are left out: the token has no tags:read.
      assert.deepEqual(items.map((i: { resourceType: string; action: string }) => `${i.resourceType}:${i.action}`), [
        'products:created', 'variants:created', 'products:updated', 'products:updated', 'variants:deleted', 'products:updated',
      ])
      assert.deepEqual(res.json().meta.types, ['products', 'variants'])
      assert.deepEqual(items[0].snapshot, { id: p.id, title: 'Mug 2' }, 'snapshot is the current document, projected')
      assert.equal(items[4].snapshot, null, 'deletes are tombstones')
      assert.equal(items[4].resourceId, v.id)
      for (const i of items) assert.match(i.occurredAt, /^\d{4}-\d\d-\d\dT/)

      // Paging with a cursor that keeps its types: repeating them is fine, changing them a 400.
      const first = (await app.get('/gatehouse/v1/changes?types=products&limit=2', token)).json()
      assert.equal(first.pagination.hasMore, true)
      const other = await app.get(`/gatehouse/v1/changes?types=variants&limit=50&cursor=${first.pagination.nextCursor}`, token)
      assert.equal(other.statusCode, 400)
      assert.deepEqual(other.json().error.details, [{ param: 'types', problem: 'the cursor belongs to types products; repeat them or leave types out' }])
      assert.equal((await app.get(`/gatehouse/v1/changes?types=products&limit=50&cursor=${first.pagination.nextCursor}`, token)).statusCode, 200)
      const second = (await app.get(`/gatehouse/v1/changes?limit=50&cursor=${first.pagination.nextCursor}`, token)).json()
      assert.deepEqual(second.data.map((i: { resourceType: string }) => i.resourceType), ['products', 'products'])
      assert.equal(second.pagination.hasMore, false)
      // At the end the cursor still resumes: new changes appear on the next poll.
      await store.update('products', p.id as number, { title: 'Mug 3' })
      const third = (await app.get(`/gatehouse/v1/changes?cursor=${second.pagination.nextCursor}`, token)).json()
      assert.deepEqual(third.data.map((i: { resourceId: number; action: string }) => [i.resourceId, i.action]), [[p.id, 'updated']])
      const bad = await app.get('/gatehouse/v1/changes?types=products,widgets', token)
      assert.equal(bad.statusCode, 400)
      assert.equal(bad.json().error.details[0].param, 'types')
    } finally {
      await app.close()
    }
  })
}

test('a cursor older than the retention answers 410 CURSOR_EXPIRED', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    const store = app.services.store
    await store.create('tags', { group: 'g', title: 'A', slug: 'a' })
    const token = await app.issueToken(['changes:read', 'tags:read'])
    const first = (await app.get('/gatehouse/v1/changes?limit=1', token)).json()
    await store.create('tags', { group: 'g', title: 'B', slug: 'b' })
    await store.create('tags', { group: 'g', title: 'C', slug: 'c' })
    // Prune everything older than a day, seen from two days ahead.
    const removed = await pruneChanges(app.services.database.db, 1, Date.now() + 2 * 86_400_000)
    assert.equal(removed, 3)
    const res = await app.get(`/gatehouse/v1/changes?cursor=${first.pagination.nextCursor}`, token)
    assert.equal(res.statusCode, 410)
    assert.equal(res.json().error.code, 'CURSOR_EXPIRED')
    // A fresh start (no cursor) still works.
    assert.equal((await app.get('/gatehouse/v1/changes', token)).statusCode, 200)
  } finally {
    await app.close()
  }
})

test('entries that are not live leave the feed of callers without entries:read_all_statuses', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    const store = app.services.store
    await store.create('sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'a', name: 'A' }] })
    const live = await store.create('entries', { section: 'news', type: 'a', title: 'Public', slug: 'public' })
    const draft = await store.create('entries', { section: 'news', type: 'a', title: 'Secret draft', slug: 'secret', status: 'pending', fields: { body: 'unreleased' } })
    const plain = await app.issueToken(['changes:read', 'entries:read'])
    const all = await app.issueToken(['changes:read', 'entries:read', 'entries:read_all_statuses'])
    const feed = await app.get('/gatehouse/v1/changes?types=entries', plain)
    assert.ok(!feed.body.includes('Secret draft') && !feed.body.includes('unreleased'), 'no pending entry content')
    const items = feed.json().data.filter((i: { resourceType: string }) => i.resourceType === 'entries')
    assert.deepEqual(items.map((i: { resourceId: number; action: string }) => [i.resourceId, i.action]), [[live.id, 'created'], [draft.id, 'deleted']])
    assert.equal(items[1].snapshot, null)
    const full = (await app.get('/gatehouse/v1/changes?types=entries', all)).json().data
    assert.equal(full[1].snapshot.title, 'Secret draft')
    // Unpublishing a live entry tells a restricted follower to drop it.
    await store.update('entries', live.id as number, { status: 'disabled' })
    const after = (await app.get('/gatehouse/v1/changes?types=entries', plain)).json().data
    assert.deepEqual(after.map((i: { action: string }) => i.action), ['deleted', 'deleted', 'deleted'])
  } finally {
    await app.close()
  }
})
