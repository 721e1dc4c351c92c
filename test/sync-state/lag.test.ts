// GET /sync-state/lag is computed when read: while a consumer stands still and changes keep
// coming, its pending count and seconds behind grow; when it checkpoints the newest cursor
// they drop to zero.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { buildTestApp, testDialects } from '../helpers/test-app.js'

interface LagEntry { resourceType: string; pendingChanges: number; lagSeconds: number; positionBy: string; cursorExpired: boolean }

for (const dialect of await testDialects()) {
  test(`${dialect}: lag grows while the consumer stands still and clears when it catches up`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      const { store } = app.services
      const { credential, token } = await app.services.credentials.create({ label: 'catalog sync', scopes: ['changes:read', 'products:read', 'syncstate:read', 'syncstate:write'] })
      const p1 = await store.create('products', { type: 'shirt', title: 'One', slug: 'one' })
      await store.create('products', { type: 'shirt', title: 'Two', slug: 'two' })

      // The consumer reads the feed to its end and checkpoints the cursor.
      const page = await app.get('/gatehouse/v1/changes?types=products', token)
      assert.equal(page.json().data.length, 2)
      const cursor = page.json().pagination.nextCursor as string
      assert.equal((await app.post('/gatehouse/v1/sync-state/checkpoint', { resourceType: 'products', cursor }, token)).statusCode, 200)

      const lag = async (): Promise<{ integrationKey: string; checkpoints: LagEntry[]; totals: { pendingChanges: number; maxLagSeconds: number } }> => {
        const res = await app.get('/gatehouse/v1/sync-state/lag', token)
        assert.equal(res.statusCode, 200, res.body)
        return res.json().data
      }
      const caughtUp = await lag()
      assert.equal(caughtUp.integrationKey, credential.id)
      assert.equal(caughtUp.checkpoints.length, 1)
      assert.deepEqual(
        { type: caughtUp.checkpoints[0].resourceType, pending: caughtUp.checkpoints[0].pendingChanges, seconds: caughtUp.checkpoints[0].lagSeconds, by: caughtUp.checkpoints[0].positionBy },
        { type: 'products', pending: 0, seconds: 0, by: 'cursor' },
      )

      // Changes keep coming; the consumer stands still.
      await sleep(30)
      await store.update('products', p1.id as number, { title: 'One (v2)' })
      await store.create('variants', { productId: p1.id, sku: 'ONE-S', title: 'S', price: 5, stock: 1 })
      await sleep(30)
      await store.create('products', { type: 'shirt', title: 'Three', slug: 'three' })
      const behind = await lag()
      // The variant write also refreshes its product, so products gained 3 changes; the
      // variant change itself is not counted against the products checkpoint.
      const productChanges = await app.services.database.db.selectFrom('change_log').select((eb) => eb.fn.countAll().as('n')).where('resource_type', '=', 'products').executeTakeFirst()
      assert.equal(behind.checkpoints[0].pendingChanges, Number(productChanges?.n) - 2)
      assert.ok(behind.checkpoints[0].pendingChanges >= 2)
      assert.ok(behind.checkpoints[0].lagSeconds > 0, `lagSeconds ${behind.checkpoints[0].lagSeconds}`)

      await sleep(30)
      await store.update('products', p1.id as number, { title: 'One (v3)' })
      await store.update('products', p1.id as number, { title: 'One (v4)' })
      const further = await lag()
      assert.equal(further.checkpoints[0].pendingChanges, behind.checkpoints[0].pendingChanges + 2)
      assert.ok(further.checkpoints[0].lagSeconds > behind.checkpoints[0].lagSeconds)
      assert.equal(further.totals.pendingChanges, further.checkpoints[0].pendingChanges)
      assert.equal(further.totals.maxLagSeconds, further.checkpoints[0].lagSeconds)

      // Catch up: follow the cursor, checkpoint the new one.
      const next = await app.get(`/gatehouse/v1/changes?cursor=${encodeURIComponent(cursor)}`, token)
      assert.equal(next.json().data.length, further.checkpoints[0].pendingChanges)
      await app.post('/gatehouse/v1/sync-state/checkpoint', { resourceType: 'products', cursor: next.json().pagination.nextCursor }, token)
      const after = await lag()
      assert.equal(after.checkpoints[0].pendingChanges, 0)
      assert.equal(after.checkpoints[0].lagSeconds, 0)
    } finally {
      await app.close()
    }
  })
}

test('lag without a cursor counts from updatedSince or checkpointAt; callers see only their own key', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    const { store } = app.services
    const { credential, token } = await app.services.credentials.create({ label: 'a', scopes: ['syncstate:read', 'syncstate:write'] })
    const other = await app.services.credentials.create({ label: 'b', scopes: ['syncstate:read', 'syncstate:write'] })
    const e1 = await store.create('sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'article', name: 'Article' }] })
    assert.ok(e1)
    await store.create('entries', { section: 'news', type: 'article', title: 'Old', slug: 'old' })
    await sleep(20)
    const mark = new Date().toISOString()
    await sleep(20)
    await store.create('entries', { section: 'news', type: 'article', title: 'New', slug: 'new' })
    await store.create('entries', { section: 'news', type: 'article', title: 'Newer', slug: 'newer' })

    await app.post('/gatehouse/v1/sync-state/checkpoint', { resourceType: 'entries', checkpointAt: mark }, token)
    await app.post('/gatehouse/v1/sync-state/checkpoint', { resourceType: 'assets', updatedSince: mark }, token)
    await app.post('/gatehouse/v1/sync-state/checkpoint', { resourceType: 'orders' }, other.token)

    const res = await app.get('/gatehouse/v1/sync-state/lag', token)
    const data = res.json().data
    assert.equal(data.integrationKey, credential.id)
    assert.deepEqual(data.checkpoints.map((c: LagEntry) => [c.resourceType, c.positionBy, c.pendingChanges]), [
      ['assets', 'updatedSince', 0],
      ['entries', 'checkpointAt', 2],
    ])
    const only = await app.get('/gatehouse/v1/sync-state/lag?resourceType=entries', token)
    assert.deepEqual(only.json().data.checkpoints.map((c: LagEntry) => c.resourceType), ['entries'])

    const foreign = await app.get(`/gatehouse/v1/sync-state/lag?integrationKey=${other.credential.id}`, token)
    assert.equal(foreign.statusCode, 403)
    assert.equal(foreign.json().error.code, 'FORBIDDEN')
    const bad = await app.get('/gatehouse/v1/sync-state/lag?resourceType=widgets', token)
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.json().error.details[0].param, 'resourceType')
    const noScope = await app.get('/gatehouse/v1/sync-state/lag', await app.issueToken(['syncstate:write']))
    assert.equal(noScope.statusCode, 403)
    assert.equal(noScope.json().error.message, 'Missing required scope: syncstate:read')
  } finally {
    await app.close()
  }
})
