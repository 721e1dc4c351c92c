// `filter` on /changes takes the list grammar applied to each change's snapshot: `~` contains,
// `*` wildcards, exact values, dot paths into the record (arrays: any element); deletes pass
// (a tombstone has no snapshot to test); a path must exist in every type of the page, and the
// 400 names the type that lacks it. A filtered page reads a bounded range of positions.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { FILTERED_SCAN_POSITIONS } from '../../src/operations/list-changes.js'

interface Item { position: number; resourceType: string; resourceId: number; action: string }

for (const dialect of await testDialects()) {
  test(`${dialect}: the feed's filter is the list grammar on snapshots, in a bounded range of positions`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      const { store } = app.services
      const token = await app.issueToken(['changes:read', 'products:read', 'tags:read', 'variants:read'])
      const { position } = (await app.get('/gatehouse/v1/changes/position', token)).json().data
      const mug = await store.create('products', { type: 'mug', title: 'Blue mug', slug: 'blue-mug' })
      const shirt = await store.create('products', { type: 'shirt', title: 'Red shirt', slug: 'red-shirt' })
      await store.create('variants', { productId: mug.id, sku: 'MUG-1', title: 'Mug', price: 9, stock: 4 })
      await store.create('tags', { group: 'g', title: 'Blue mug', slug: 'blue-mug' })
      await store.remove('products', shirt.id as number)

      const feed = async (query: string) => {
        const res = await app.get(`/gatehouse/v1/changes?after=${position}&${query}`, token)
        assert.equal(res.statusCode, 200, res.body)
        return (res.json().data as Item[]).map((i) => `${i.resourceType}:${i.resourceId}:${i.action}`)
      }
      const ofMug = [`products:${mug.id}:created`, `products:${mug.id}:updated`]
      const shirtGone = `products:${shirt.id}:deleted`
      assert.deepEqual(await feed('types=products&filter=title:~MUG'), [...ofMug, shirtGone], '~ is a case-insensitive contains; deletes pass')
      assert.deepEqual(await feed('types=products&filter=title:Blue*'), [...ofMug, shirtGone])
      assert.deepEqual(await feed('types=products&filter=slug:blue-mug'), [...ofMug, shirtGone])
      assert.deepEqual(await feed('types=products&filter=variants.sku:MUG-1'), [...ofMug, shirtGone], 'paths into arrays: any element (the snapshot is the record now)')
      assert.deepEqual(await feed('types=products&filter=title:~mug,action:created'), [`products:${mug.id}:created`])
      const tag = (await app.get('/gatehouse/v1/tags', token)).json().data[0].id as number
      assert.deepEqual(await feed('types=products,tags&filter=slug:blue-*'), [...ofMug, `tags:${tag}:created`, shirtGone])

      const missing = await app.get('/gatehouse/v1/changes?types=products,tags&filter=totalStock:0', token)
      assert.equal(missing.statusCode, 400)
      assert.equal(missing.json().error.details[0].param, 'filter')
      assert.match(missing.json().error.details[0].problem, /^type tags: .*"totalStock".*valid fields: .*slug/)
      const unknown = await app.get('/gatehouse/v1/changes?types=products&filter=nope:1', token)
      assert.equal(unknown.statusCode, 400)
      assert.match(unknown.json().error.details[0].problem, /type products: .*"nope"/)
      const badAction = await app.get('/gatehouse/v1/changes?filter=action:moved', token)
      assert.deepEqual(badAction.json().error.details, [{ param: 'filter', problem: 'action:moved is not an action; must be one of: created, updated, deleted' }])

      // Past a long run of changes the filter keeps none of, a page stops at the end of its
      // range: short (here empty), hasMore true, and the next page goes on from there.
      const before = (await app.get('/gatehouse/v1/changes/position', token)).json().data.position as number
      await store.transaction((w) => w.createMany('tags', Array.from({ length: FILTERED_SCAN_POSITIONS + 50 }, (_, i) => ({ group: 'bulk', title: `T${i}`, slug: `t-${i}` }))))
      const late = await store.create('products', { type: 'mug', title: 'Late mug', slug: 'late-mug' })
      const first = (await app.get(`/gatehouse/v1/changes?types=products,tags&after=${before}&filter=title:~mug`, token)).json()
      assert.deepEqual(first.data, [])
      assert.equal(first.pagination.hasMore, true)
      assert.equal(first.meta.position, before + FILTERED_SCAN_POSITIONS)
      const second = (await app.get(`/gatehouse/v1/changes?filter=title:~mug&cursor=${first.pagination.nextCursor}`, token)).json()
      assert.deepEqual(second.data.map((i: Item) => [i.resourceType, i.resourceId]), [['products', late.id]])
      assert.equal(second.pagination.hasMore, false)
    } finally {
      await app.close()
    }
  })
}
