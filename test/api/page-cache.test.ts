// Repeated reads are served from the page cache, but never across a write (ours or
// another process's) and never across callers with different scopes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { openDatabase } from '../../src/store/database.js'
import { ContentStore } from '../../src/store/content-store.js'
import { defaultRegistry } from '../../src/resources/index.js'
import { PageCache } from '../../src/operations/page-cache.js'

test('a cached page is dropped by a write through this process or another one', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    await seedSmallCatalog(app.services.store)
    const token = await app.issueToken(['products:read', 'changes:read'])
    const titles = async () => (await app.get('/gatehouse/v1/products?fields=title', token)).json().data.map((p: { title: string }) => p.title)
    assert.deepEqual(await titles(), ['Blue shirt', 'Gift card'])
    assert.deepEqual(await titles(), ['Blue shirt', 'Gift card'])
    await app.services.store.update('products', 1, { title: 'Red shirt' })
    assert.deepEqual(await titles(), ['Gift card', 'Red shirt'])

    // Another process: a second connection to the same SQLite file.
    const other = openDatabase(app.database.url)
    try {
      await new ContentStore(other, defaultRegistry).update('products', 1, { title: 'Green shirt' })
    } finally {
      await other.close()
    }
    assert.deepEqual(await titles(), ['Gift card', 'Green shirt'])
    const feed = (await app.get('/gatehouse/v1/changes?types=products&limit=200', token)).json().data
    assert.equal(feed[feed.length - 1].snapshot.title, 'Green shirt')
  } finally {
    await app.close()
  }
})

test('callers with different scopes never share a cached page', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    await seedSmallCatalog(app.services.store)
    const sensitive = await app.issueToken(['orders:read', 'orders:read_sensitive'])
    const plain = await app.issueToken(['orders:read'])
    assert.ok((await app.get('/gatehouse/v1/orders/show?id=1', sensitive)).body.includes('buyer@example.com'))
    assert.ok(!(await app.get('/gatehouse/v1/orders/show?id=1', plain)).body.includes('buyer@example.com'))
    assert.ok((await app.get('/gatehouse/v1/orders/show?id=1', sensitive)).body.includes('buyer@example.com'))
    // Each answer has its own request id even when the page comes from the cache.
    const a = await app.get('/gatehouse/v1/orders/show?id=1', plain)
    const b = await app.get('/gatehouse/v1/orders/show?id=1', plain)
    assert.notEqual(a.json().requestId, b.json().requestId)
  } finally {
    await app.close()
  }
})

test('a page is kept from its second request on, so a walk of distinct pages does not churn the cache', async () => {
  let version = '1'
  const cache = new PageCache(() => version, 4)
  let computed = 0
  const page = (key: string) => cache.through(key, async () => `${key}@${version}#${++computed}`)
  // Asked for once: computed, not kept. Asked again soon: computed once more and kept.
  for (const key of ['a', 'b', 'c', 'd']) await page(key)
  assert.equal(await page('a'), 'a@1#5')
  assert.equal(await page('a'), 'a@1#5')
  // A walk longer than the cache holds: its pages are never kept, so a page asked for again
  // only after the walk is computed again.
  for (let i = 1; i <= 8; i++) await page(`w${i}`)
  assert.equal(computed, 13)
  assert.equal(await page('w1'), 'w1@1#14')
  assert.equal(await page('w1'), 'w1@1#15')
  assert.equal(await page('w1'), 'w1@1#15')
  // A write drops every kept page; a key asked for before is kept again at its next request.
  version = '2'
  assert.equal(await page('w1'), 'w1@2#16')
  assert.equal(await page('w1'), 'w1@2#16')
})

test('a walk longer than the cache is never kept, even between hits of a popular page', async () => {
  const cache = new PageCache(() => '1', 4)
  const computed = new Map<string, number>()
  const page = (key: string) => cache.through(key, async () => {
    computed.set(key, (computed.get(key) ?? 0) + 1)
    return `${key}#${computed.get(key)}`
  })
  await page('home')
  await page('home')
  // Each round walks four distinct pages with the popular one between them: with the one
  // it makes five keys, more than the cache's four, so no walked page may come from the cache.
  // (When only misses counted as asks, the hits hid the walk's length: round 2 kept the walked
  // pages, which pushed the popular one out.)
  for (let round = 1; round <= 3; round++) {
    for (const w of ['w1', 'w2', 'w3', 'w4']) {
      assert.equal(await page(w), `${w}#${round}`)
      assert.equal(await page('home'), 'home#2')
    }
  }
  assert.deepEqual(cache.counts(), { hits: 12, misses: 14 })
})
