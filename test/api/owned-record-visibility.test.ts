// Records owned by another family's record (content blocks of an entry) are visible only
// while their owner is: without entries:read_all_statuses, the blocks of pending and
// disabled entries stay out of lists, filters, details and the change feed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: content blocks of unpublished entries are hidden without entries:read_all_statuses`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      const { store } = app.services
      await store.create('sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'article', name: 'Article' }] })
      const entry = (status: string, slug: string) => store.create('entries', { section: 'news', type: 'article', title: slug, slug, status })
      const live = await entry('live', 'live-one')
      const pending = await entry('pending', 'pending-one')
      const disabled = await entry('disabled', 'disabled-one')
      const block = (ownerId: unknown, text: string) => store.create('content-blocks', { ownerId, fieldId: 1, type: 'text', sortOrder: 0, fields: { text } })
      const liveBlock = await block(live.id, 'public words')
      const pendingBlock = await block(pending.id, 'secret launch plan')
      const disabledBlock = await block(disabled.id, 'withdrawn words')

      const restricted = await app.issueToken(['contentblocks:read', 'changes:read'])
      const everything = await app.issueToken(['contentblocks:read', 'changes:read', 'entries:read', 'entries:read_all_statuses'])
      const ids = (res: { json(): { data: { id: number }[] } }) => res.json().data.map((b) => b.id)

      // Lists, with and without the owner filter or a document filter.
      assert.deepEqual(ids(await app.get('/gatehouse/v1/content-blocks', restricted)), [liveBlock.id])
      assert.deepEqual(ids(await app.get(`/gatehouse/v1/content-blocks?ownerId=${pending.id}`, restricted)), [])
      assert.deepEqual(ids(await app.get('/gatehouse/v1/content-blocks?filter=fields.text:~words', restricted)), [liveBlock.id])
      assert.deepEqual(ids(await app.get('/gatehouse/v1/content-blocks', everything)), [liveBlock.id, pendingBlock.id, disabledBlock.id])

      // Details answer as if the block did not exist.
      for (const b of [pendingBlock, disabledBlock]) {
        const res = await app.get(`/gatehouse/v1/content-blocks/show?id=${String(b.id)}`, restricted)
        assert.equal(res.statusCode, 404)
        assert.ok(!res.body.includes('secret launch plan'))
        assert.equal((await app.get(`/gatehouse/v1/content-blocks/show?uid=${String(b.uid)}`, everything)).statusCode, 200)
      }
      assert.equal((await app.get(`/gatehouse/v1/content-blocks/show?id=${String(liveBlock.id)}`, restricted)).statusCode, 200)

      // The change feed shows the hidden blocks as deletes without a snapshot.
      const feed = await app.get('/gatehouse/v1/changes?types=contentblocks', restricted)
      assert.equal(feed.statusCode, 200)
      assert.ok(!feed.body.includes('secret launch plan') && !feed.body.includes('withdrawn words'))
      const byId = new Map(feed.json().data.map((c: { resourceId: number; action: string; snapshot: unknown }) => [c.resourceId, c]))
      assert.deepEqual(byId.get(pendingBlock.id), { ...(byId.get(pendingBlock.id) as object), action: 'deleted', snapshot: null })
      assert.equal((byId.get(liveBlock.id) as { action: string }).action, 'created')
      const full = await app.get('/gatehouse/v1/changes?types=contentblocks', everything)
      assert.ok(full.body.includes('secret launch plan'))

      // Publishing the entry makes its blocks visible.
      await store.update('entries', pending.id as number, { status: 'live' })
      assert.deepEqual(ids(await app.get('/gatehouse/v1/content-blocks', restricted)), [liveBlock.id, pendingBlock.id])
    } finally {
      await app.close()
    }
  })
}
