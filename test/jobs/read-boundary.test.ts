// The read boundary: while a run of a workflow with a boundary is open, its credential's
// machine-API reads are limited to it. Lists and the change feed return only records inside
// (filtered in the database, so pages are full and cursors work); a detail outside is a 403
// naming the workflow. Other credentials are not affected; the limit ends with the run, or
// when its lease runs out. Cached pages (SQLite's page cache) never leak across the limit.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { dataOf } from '../admin/helpers/admin-client.js'
import { jobsApp } from './helpers/jobs-app.js'

const V1 = '/gatehouse/v1'
const READS = ['entries:read', 'products:read', 'variants:read', 'orders:read', 'sections:read', 'contentblocks:read', 'tags:read', 'changes:read']
const ids = (res: { json(): { data: { id: number }[] } }) => res.json().data.map((x) => x.id).sort((a, b) => a - b)

for (const dialect of await testDialects()) {
  test(`${dialect}: while a bounded run is open, lists, details and the change feed stay inside the boundary`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T08:30:00Z' })
    t.after(() => app.close())
    const { ids: seeded } = await seedSmallCatalog(app.services.store)
    const store = app.services.store
    await store.create('sections', { handle: 'blog', name: 'Blog', type: 'channel', entryTypes: [{ handle: 'post', name: 'Post' }] })
    await store.create('entries', { section: 'blog', type: 'post', title: 'Elsewhere', slug: 'elsewhere' })
    const named = await store.create('entries', { section: 'blog', type: 'post', title: 'Named by id', slug: 'named' })
    const products = (await app.database.db.selectFrom('products').select('id').orderBy('id').execute()).map((r) => Number(r.id))
    const [inside, outside] = products
    const variantsOf = async (productId: number) => (await app.database.db.selectFrom('variants').select('id').where('product_id', '=', productId).execute()).map((r) => Number(r.id)).sort((a, b) => a - b)

    const w = await app.worker(['jobs:read', 'jobs:report', ...READS])
    const bystander = await app.issueToken(READS)
    const wf = await app.define({ name: 'News and shirts', credentialId: w.id, boundary: { sections: ['news'], entryIds: [named.id as number], productIds: [inside] } })
    const unbounded = await app.define({ name: 'Unbounded', credentialId: w.id, templateKey: 'other' })

    // Before the run: everything, and these pages land in the page cache (SQLite; a page is
    // kept from its second request on).
    for (let i = 0; i < 2; i++) {
      assert.equal(ids(await app.get(`${V1}/products`, w.token)).length, 2)
      assert.equal(ids(await app.get(`${V1}/entries`, w.token)).length, 3)
    }

    app.clock.set('2025-06-02T09:01:00Z')
    // An open run of a workflow without a boundary limits nothing.
    dataOf(await app.report(w.token, { workflowId: unbounded.id, status: 'started' }))
    assert.equal(ids(await app.get(`${V1}/products`, w.token)).length, 2)

    const run = dataOf(await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'sync' }))
    assert.deepEqual(ids(await app.get(`${V1}/products`, w.token)), [inside])
    assert.deepEqual(ids(await app.get(`${V1}/products?limit=1`, w.token)), [inside])
    assert.equal((await app.get(`${V1}/products?limit=1`, w.token)).json().pagination.hasMore, false, 'pages are filtered in the database')
    assert.deepEqual(ids(await app.get(`${V1}/variants`, w.token)), await variantsOf(inside), 'a variant counts as its product')
    assert.deepEqual(ids(await app.get(`${V1}/entries`, w.token)), [seeded.entries, named.id as number].sort((a, b) => a - b), 'news entries and the one named by id')
    assert.deepEqual((await app.get(`${V1}/sections`, w.token)).json().data.map((s: { handle: string }) => s.handle), ['news'])
    assert.deepEqual(ids(await app.get(`${V1}/content-blocks`, w.token)).length, 1, 'the block of a news entry (owner inside)')
    assert.deepEqual(ids(await app.get(`${V1}/orders`, w.token)), [], 'families no boundary names are outside')
    assert.deepEqual(ids(await app.get(`${V1}/tags`, w.token)), [])

    assert.equal((await app.get(`${V1}/products/show?id=${inside}`, w.token)).statusCode, 200)
    const refused = await app.get(`${V1}/products/show?id=${outside}`, w.token)
    assert.equal(refused.statusCode, 403)
    assert.equal(refused.json().error.code, 'FORBIDDEN')
    assert.equal(refused.json().error.message, `products ${outside} is outside the read boundary of workflow "News and shirts" (${wf.id}), which limits this credential's reads while its run is open`)
    assert.equal((await app.get(`${V1}/entries/show?slug=elsewhere`, w.token)).statusCode, 403)
    assert.equal((await app.get(`${V1}/orders/show?id=${seeded.orders}`, w.token)).statusCode, 403)
    assert.equal((await app.get(`${V1}/products/show?id=999999`, w.token)).statusCode, 404, 'a missing record is still a 404')

    // The change feed: a record outside the boundary is one the worker may not see: its changes
    // come as deletes without a snapshot (a mirror drops it), whatever it holds.
    const { position } = (await app.get(`${V1}/changes/position`, bystander)).json().data
    await store.update('products', outside, { title: 'Gift card v2' })
    await store.update('products', inside, { title: 'Blue shirt v2' })
    await store.remove('entries', named.id as number)
    // An entry that leaves the boundary: the worker may hold it, so it learns to drop it.
    await store.update('entries', seeded.entries, { section: 'blog', type: 'post' })
    type Change = { resourceType: string; resourceId: number; action: string; snapshot: { title?: string } | null }
    const feed = (await app.get(`${V1}/changes?after=${position}&limit=200`, w.token)).json().data as Change[]
    const names: Record<string, string> = { [`products:${inside}`]: 'inside', [`products:${outside}`]: 'outside', [`entries:${named.id as number}`]: 'named', [`entries:${seeded.entries}`]: 'moved' }
    const shown = feed.map((c) => `${c.resourceType}:${names[`${c.resourceType}:${c.resourceId}`] ?? c.resourceId}:${c.action}:${c.snapshot === null ? 'null' : c.snapshot.title ?? 'doc'}`)
    assert.deepEqual(shown.filter((x) => !x.startsWith('variants:') && !x.startsWith('contentblocks:')), [
      'products:outside:deleted:null', 'products:inside:updated:Blue shirt v2', 'entries:named:deleted:null', 'entries:moved:deleted:null',
    ])
    assert.ok(feed.filter((c) => c.resourceType === 'contentblocks').every((c) => c.action === 'deleted' && c.snapshot === null), 'the moved entry\'s block left with it')
    const bystanderView = (await app.get(`${V1}/changes?after=${position}&types=products,entries&limit=200`, bystander)).json().data as Change[]
    assert.deepEqual(bystanderView.map((c) => c.action), ['updated', 'updated', 'deleted', 'updated'], 'other credentials see the changes as they are')
    // Filters test only what the worker may see: an outside record passes as the delete it is shown as.
    const filtered = (await app.get(`${V1}/changes?after=${position}&types=products&filter=${encodeURIComponent('title:~Gift')}`, w.token)).json().data as Change[]
    assert.deepEqual(filtered.map((c) => [c.resourceId, c.action]), [[outside, 'deleted']])
    const paged = (await app.get(`${V1}/changes?after=${position}&types=products&limit=1`, w.token)).json()
    assert.deepEqual(paged.data.map((c: Change) => [c.resourceId, c.action]), [[outside, 'deleted']])
    assert.deepEqual((await app.get(`${V1}/changes?types=products&cursor=${encodeURIComponent(paged.pagination.nextCursor)}`, w.token)).json().data.map((c: Change) => [c.resourceId, c.action]), [[inside, 'updated']])

    // Other credentials read as before.
    assert.equal(ids(await app.get(`${V1}/products`, bystander)).length, 2)
    assert.equal((await app.get(`${V1}/products/show?id=${outside}`, bystander)).statusCode, 200)

    // A run waiting for approval is still open: still limited.
    dataOf(await app.report(w.token, { workflowId: wf.id, status: 'approval_requested', workerId: 'sync' }))
    assert.deepEqual(ids(await app.get(`${V1}/products`, w.token)), [inside])

    // The run ends: the limit ends.
    dataOf(await app.report(w.token, { workflowId: wf.id, status: 'succeeded', runId: run.id, workerId: 'sync' }))
    assert.equal(ids(await app.get(`${V1}/products`, w.token)).length, 2)
    assert.equal((await app.get(`${V1}/products/show?id=${outside}`, w.token)).statusCode, 200)
  })

  test(`${dialect}: the limit ends when the run's lease runs out, before any sweep`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T08:30:00Z' })
    t.after(() => app.close())
    await seedSmallCatalog(app.services.store)
    const [inside] = (await app.database.db.selectFrom('products').select('id').orderBy('id').execute()).map((r) => Number(r.id))
    const w = await app.worker(['jobs:read', 'jobs:report', 'products:read'])
    const wf = await app.define({ credentialId: w.id, boundary: { productIds: [inside] } })
    app.clock.set('2025-06-02T09:01:00Z')
    dataOf(await app.report(w.token, { workflowId: wf.id, status: 'started' }))
    assert.deepEqual(ids(await app.get(`${V1}/products`, w.token)), [inside])
    app.clock.set('2025-06-02T09:16:00Z')
    assert.equal(ids(await app.get(`${V1}/products`, w.token)).length, 2)
  })
}
