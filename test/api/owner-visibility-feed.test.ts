// An owner's status change is a change of the records it owns: a content block of an entry
// that stops being live leaves the feed of a caller who may see live entries only (a
// tombstone), and comes back with its snapshot when the entry is live again.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: an entry's status change shows its content blocks leaving and coming back in the feed`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      const { store } = app.services
      await store.create('sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'article', name: 'Article' }] })
      const entry = await store.create('entries', { section: 'news', type: 'article', title: 'Hello', slug: 'hello' })
      const block = await store.create('content-blocks', { ownerId: entry.id, fieldId: 1, type: 'text', sortOrder: 0, fields: { text: 'Hi' } })
      const token = await app.issueToken(['changes:read', 'entries:read', 'contentblocks:read'])
      const { position } = (await app.get('/gatehouse/v1/changes/position', token)).json().data

      await store.update('entries', entry.id as number, { status: 'pending' })
      const hidden = (await app.get(`/gatehouse/v1/changes?types=contentblocks&after=${position}`, token)).json()
      assert.deepEqual(hidden.data.map((i: { resourceId: number; action: string; snapshot: unknown }) => [i.resourceId, i.action, i.snapshot]), [[block.id, 'deleted', null]])

      await store.update('entries', entry.id as number, { status: 'live' })
      const shown = (await app.get(`/gatehouse/v1/changes?types=contentblocks&after=${hidden.meta.position}`, token)).json()
      assert.deepEqual(shown.data.map((i: { resourceId: number; action: string; snapshot: { fields: unknown } }) => [i.resourceId, i.action, i.snapshot.fields]), [[block.id, 'updated', { text: 'Hi' }]])
      // A title change leaves the blocks alone.
      await store.update('entries', entry.id as number, { title: 'Hello again' })
      assert.deepEqual((await app.get(`/gatehouse/v1/changes?types=contentblocks&after=${shown.meta.position}`, token)).json().data, [])
    } finally {
      await app.close()
    }
  })
}
