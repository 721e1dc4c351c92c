// The sync contract's positions (docs/sync.md): GET /changes/position taken before a full
// copy hands over to /changes?after=<position> without a gap; every item names its position;
// retention is published, and a position older than it is a 410 naming the oldest kept one
// and the reset procedure.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { pruneChanges } from '../../src/store/change-log.js'

interface Item { position: number; resourceType: string; resourceId: number; action: string; snapshot: { title?: string } | null }

for (const dialect of await testDialects()) {
  test(`${dialect}: a follower starting after the position taken before its copy sees every change made during the copy`, async () => {
    const app = await buildTestApp({ dialect, env: { PLUGIN_GATEHOUSE_CHANGES_RETENTION_DAYS: '30' } })
    try {
      const { store } = app.services
      const a = await store.create('products', { type: 'mug', title: 'A', slug: 'a' })
      await store.create('products', { type: 'mug', title: 'B', slug: 'b' })
      const token = await app.issueToken(['changes:read', 'products:read'])

      const taken = await app.get('/gatehouse/v1/changes/position', token)
      assert.equal(taken.statusCode, 200)
      const { position, oldestPosition, retentionDays } = taken.json().data
      assert.equal(oldestPosition, 0)
      assert.equal(retentionDays, 30)
      const before = (await app.get('/gatehouse/v1/changes?types=products', token)).json().data as Item[]
      assert.equal(position, before[before.length - 1].position, 'the position is the newest change\'s')

      // The copy pages through the list while writes go on.
      const page1 = (await app.get('/gatehouse/v1/products?status=all&limit=1', token)).json()
      await store.update('products', a.id as number, { title: 'A2' })
      const c = await store.create('products', { type: 'mug', title: 'C', slug: 'c' })
      const page2 = (await app.get(`/gatehouse/v1/products?status=all&limit=1&cursor=${page1.pagination.nextCursor}`, token)).json()
      assert.equal(page1.data.length + page2.data.length, 2)

      const follow = await app.get(`/gatehouse/v1/changes?types=products&after=${position}`, token)
      assert.equal(follow.statusCode, 200)
      const items = follow.json().data as Item[]
      assert.deepEqual(items.map((i) => [i.resourceId, i.action]), [[a.id, 'updated'], [c.id, 'created']])
      assert.ok(items.every((i) => i.position > position))
      assert.ok(items[0].position < items[1].position, 'positions follow commit order')
      assert.equal(follow.json().meta.position, items[1].position, 'meta.position is where the next page starts')
      assert.equal(follow.json().meta.mode, 'incremental')
      // The cursor and `after` name the same place: following either gives the same next page.
      await store.update('products', c.id as number, { title: 'C2' })
      const byCursor = (await app.get(`/gatehouse/v1/changes?cursor=${follow.json().pagination.nextCursor}`, token)).json().data as Item[]
      const byAfter = (await app.get(`/gatehouse/v1/changes?types=products&after=${items[1].position}`, token)).json().data as Item[]
      assert.deepEqual(byCursor, byAfter)
      assert.deepEqual(byAfter.map((i) => [i.resourceId, i.action, i.snapshot?.title]), [[c.id, 'updated', 'C2']])

      const both = await app.get(`/gatehouse/v1/changes?after=0&cursor=${follow.json().pagination.nextCursor}`, token)
      assert.equal(both.statusCode, 400)
      assert.deepEqual(both.json().error.details, [{ param: 'after', problem: 'give either cursor or after, not both' }])
      const future = await app.get(`/gatehouse/v1/changes?after=${byAfter[0].position + 100}`, token)
      assert.equal(future.statusCode, 400)
      assert.equal(future.json().error.details[0].param, 'after')
    } finally {
      await app.close()
    }
  })

  test(`${dialect}: retention is published, and a cursor or position before it answers 410 with the oldest kept position and the reset`, async () => {
    const app = await buildTestApp({ dialect, env: { PLUGIN_GATEHOUSE_CHANGES_RETENTION_DAYS: '7' } })
    try {
      const { store } = app.services
      await store.create('tags', { group: 'g', title: 'A', slug: 'a' })
      const token = await app.issueToken(['changes:read', 'tags:read', 'capabilities:read', 'syncstate:read'])
      const first = (await app.get('/gatehouse/v1/changes?limit=1', token)).json()
      const firstPosition = first.data[0].position as number
      await store.create('tags', { group: 'g', title: 'B', slug: 'b' })
      assert.equal((await app.get('/gatehouse/v1/capabilities', token)).json().data.limits.changesRetentionDays, 7)

      await pruneChanges(app.services.database.db, 7, Date.now() + 8 * 86_400_000)
      const now = (await app.get('/gatehouse/v1/changes/position', token)).json().data
      assert.equal(now.oldestPosition, firstPosition + 1, 'pruning removed both changes: resume no earlier than the last')
      assert.equal(now.position, now.oldestPosition)
      const lag = (await app.get('/gatehouse/v1/sync-state/lag', token)).json().data
      assert.deepEqual(lag.retention, { days: 7, oldestPosition: now.oldestPosition })

      for (const [param, url] of [['cursor', `/gatehouse/v1/changes?cursor=${first.pagination.nextCursor}`], ['after', `/gatehouse/v1/changes?after=${firstPosition}`]]) {
        const res = await app.get(url, token)
        assert.equal(res.statusCode, 410, url)
        const error = res.json().error
        assert.equal(error.code, 'CURSOR_EXPIRED')
        assert.match(error.message, new RegExp(`oldest position to resume from is ${now.oldestPosition}`))
        assert.match(error.message, /GET \/changes\/position, copy every record again .* then follow \/changes\?after=<that position>/)
        assert.deepEqual(error.details, [{ param, problem: `position ${firstPosition} is older than the oldest position to resume from (${now.oldestPosition})` }])
      }
      // Following from the oldest kept position works.
      assert.equal((await app.get(`/gatehouse/v1/changes?after=${now.oldestPosition}`, token)).statusCode, 200)
    } finally {
      await app.close()
    }
  })
}
