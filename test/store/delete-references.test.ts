// A record other records still point at is not deleted (409 naming the referrers), so no
// reference is left dangling; owned variants go with their product.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDatabase, testDialects } from '../helpers/test-app.js'
import { ContentStore } from '../../src/store/content-store.js'
import { ApiError } from '../../src/kernel/errors.js'
import { defaultRegistry } from '../../src/resources/index.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: deleting a referenced user, section, location or parent category is refused`, async () => {
    const database = await testDatabase(dialect)
    try {
      const store = new ContentStore(database, defaultRegistry)
      const user = await store.create('users', { username: 'ada', email: 'ada@example.com' })
      await store.create('addresses', { ownerId: user.id, countryCode: 'GB' })
      const section = await store.create('sections', { handle: 'news', name: 'News', type: 'channel' })
      const entry = await store.create('entries', { section: 'news', type: 'a', title: 'T', slug: 't', authorId: user.id })
      const parent = await store.create('categories', { group: 'g', title: 'P', slug: 'p' })
      const child = await store.create('categories', { group: 'g', title: 'C', slug: 'c', parentId: parent.id })
      const refused = async (type: string, id: number, referrer: string) => {
        await assert.rejects(store.remove(type, id), (e: unknown) =>
          e instanceof ApiError && e.code === 'CONFLICT' && (e.details ?? []).some((d) => d.param === referrer))
        assert.ok(await store.get(type, id), `${type} ${id} still there`)
      }
      await refused('users', user.id as number, 'addresses.ownerId')
      await refused('users', user.id as number, 'entries.authorId')
      await refused('sections', section.id as number, 'entries.section')
      await refused('categories', parent.id as number, 'categories.parentId')
      // Once the referrers are gone the delete goes through.
      await store.remove('categories', child.id as number)
      await store.remove('categories', parent.id as number)
      await store.remove('entries', entry.id as number)
      await store.remove('sections', section.id as number)
      assert.equal(await store.get('sections', section.id as number), undefined)
      // Variants are owned: they go with their product (with tombstones), no refusal.
      const p = await store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
      await store.create('variants', { productId: p.id, sku: 'M', title: 'M', price: 1 })
      await store.remove('products', p.id as number)
      assert.deepEqual(await database.db.selectFrom('variants').select('id').execute(), [])
    } finally {
      await database.destroy()
    }
  })
}
