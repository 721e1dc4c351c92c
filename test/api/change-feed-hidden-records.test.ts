// A record the caller may not see is in the feed as a delete without a snapshot, and the feed's
// conditions treat it as that delete (found by an outside review):
// - a snapshot `filter` passes it whatever it holds: tested on the stored record, a hidden
//   entry came (as a delete) only when it matched, so its body could be read one guess at a time;
// - `filter=action:…` reads the action shown: `action:deleted` has it, `action:updated` has not.
// Also: a first page read without `after` after pruning hands back a position still kept, and
// a leap second (`23:59:60Z`, which JavaScript cannot read) is a 400, not a bound matching nothing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { pruneChanges } from '../../src/store/change-log.js'

interface Item { position: number; resourceType: string; resourceId: number; action: string; snapshot: unknown }

for (const dialect of await testDialects()) {
  test(`${dialect}: a hidden record is a delete to the feed's filter and action conditions; nothing of it is tested`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    const { store } = app.services
    await store.create('sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'article', name: 'Article' }] })
    const token = await app.issueToken(['changes:read', 'entries:read'])
    const everything = await app.issueToken(['changes:read', 'entries:read', 'entries:read_all_statuses'])
    const { position } = (await app.get('/gatehouse/v1/changes/position', token)).json().data
    const secret = await store.create('entries', { section: 'news', type: 'article', title: 'Secret plan', slug: 'secret', status: 'pending', fields: { body: 'launch on friday' } })
    const open = await store.create('entries', { section: 'news', type: 'article', title: 'Open letter', slug: 'open', fields: { body: 'hello' } })
    await store.update('entries', open.id as number, { title: 'Open letter, again' })

    const feed = async (query: string, as = token) => {
      const res = await app.get(`/gatehouse/v1/changes?after=${position}&types=entries&${query}`, as)
      assert.equal(res.statusCode, 200, res.body)
      return (res.json().data as Item[]).map((i) => `${i.resourceId === secret.id ? 'secret' : 'open'}:${i.action}${i.snapshot === null ? ':null' : ''}`)
    }
    assert.deepEqual(await feed(''), ['secret:deleted:null', 'open:created', 'open:updated'], 'the pending entry is a delete to this caller')
    // Whatever the filter asks of its content, the hidden entry comes as the same delete.
    for (const filter of ['fields.body:launch*', 'fields.body:nothing*', 'title:~secret', 'title:~zzz', 'status:pending']) {
      const items = await feed(`filter=${encodeURIComponent(filter)}`)
      assert.deepEqual(items.filter((i) => i.startsWith('secret')), ['secret:deleted:null'], filter)
    }
    assert.deepEqual(await feed(`filter=${encodeURIComponent('title:~open')}`), ['secret:deleted:null', 'open:created', 'open:updated'])
    // The action shown is the one filtered on.
    assert.deepEqual(await feed('filter=action:deleted'), ['secret:deleted:null'])
    assert.deepEqual(await feed('filter=action:created'), ['open:created'])
    assert.deepEqual(await feed('filter=action:updated'), ['open:updated'])
    // A caller who may see it gets its content tested as any record's.
    assert.deepEqual(await feed(`filter=${encodeURIComponent('fields.body:launch*')}`, everything), ['secret:created'])
    assert.deepEqual(await feed(`filter=${encodeURIComponent('fields.body:nothing*')}`, everything), [])
    assert.deepEqual(await feed('filter=action:created', everything), ['secret:created', 'open:created'])
  })

  test(`${dialect}: after pruning, a first page without after hands back a position still kept`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    const { store } = app.services
    const token = await app.issueToken(['changes:read', 'products:read', 'globalsets:read'])
    for (let i = 0; i < 3; i++) await store.create('products', { type: 'mug', title: `Mug ${i}`, slug: `mug-${i}` })
    await pruneChanges(app.services.database.db, 1, Date.now() + 2 * 86_400_000)
    const { oldestPosition } = (await app.get('/gatehouse/v1/changes/position', token)).json().data
    assert.ok(oldestPosition >= 3, 'the changes were pruned')
    // No change of this type is kept, and a filtered page scans a range: neither may start at 0.
    for (const query of ['types=globalsets', 'types=products&excludeOwn=true', 'types=products&filter=title:~mug']) {
      const first = await app.get(`/gatehouse/v1/changes?${query}`, token)
      assert.equal(first.statusCode, 200, first.body)
      assert.ok(first.json().meta.position >= oldestPosition, `${query}: position ${first.json().meta.position}`)
      const next = await app.get(`/gatehouse/v1/changes?${query}&cursor=${encodeURIComponent(first.json().pagination.nextCursor)}`, token)
      assert.equal(next.statusCode, 200, `${query}: ${next.body}`)
    }
    // A change made now is found by following the first page's cursor.
    const first = (await app.get('/gatehouse/v1/changes?types=products&filter=title:~mug', token)).json()
    const mug = await store.create('products', { type: 'mug', title: 'Mug 9', slug: 'mug-9' })
    const next = (await app.get(`/gatehouse/v1/changes?types=products&filter=title:~mug&cursor=${encodeURIComponent(first.pagination.nextCursor)}`, token)).json()
    assert.deepEqual(next.data.map((i: Item) => i.resourceId), [mug.id])
  })
}

test('a leap second is a 400 naming the parameter, on lists, the feed and bodies', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['changes:read', 'products:read', 'syncstate:write'])
  for (const url of ['/gatehouse/v1/changes?types=products&updatedSince=2016-12-31T23:59:60Z', '/gatehouse/v1/products?updatedSince=2016-12-31T23:59:60Z']) {
    const res = await app.get(url, token)
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`)
    assert.equal(res.json().error.details[0].param, 'updatedSince', url)
  }
  assert.equal((await app.get('/gatehouse/v1/products?updatedSince=2016-12-31T23:59:59Z', token)).statusCode, 200)
  const body = await app.post('/gatehouse/v1/sync-state/checkpoint', { resourceType: 'products', updatedSince: '2016-12-31T23:59:60Z' }, token)
  assert.equal(body.statusCode, 400, body.body)
  assert.equal(body.json().error.details[0].param, 'updatedSince')
})

test('fields on the feed names the scope a sensitive field needs, as lists do', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['changes:read', 'orders:read', 'products:read'])
  const res = await app.get('/gatehouse/v1/changes?types=orders,products&fields=id,email', token)
  assert.equal(res.statusCode, 400, res.body)
  assert.deepEqual(res.json().error.details, [{ param: 'fields', problem: '"email" requires scope orders:read_sensitive' }])
  assert.match((await app.get('/gatehouse/v1/changes?types=orders&fields=id,nope', token)).json().error.details[0].problem, /^unknown field "nope"/)
})
