// A checkpoint's cursor is an opaque string (the spec types it as a plain string): any value
// of 1..2048 characters is kept as given; lag counts from it only when it is a /changes cursor
// that follows the checkpoint's type, and otherwise from updatedSince or checkpointAt.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { buildTestApp } from '../helpers/test-app.js'

const CHECKPOINT = '/gatehouse/v1/sync-state/checkpoint'
const LAG = '/gatehouse/v1/sync-state/lag'

for (const dialect of await testDialects()) {
  test(`${dialect}: any cursor string is kept; lag uses it only when it is a change-feed cursor of that type`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    const { store } = app.services
    await store.create('products', { type: 'shirt', title: 'A', slug: 'a' })
    await store.create('products', { type: 'shirt', title: 'B', slug: 'b' })
    const token = await app.issueToken(['syncstate:write', 'syncstate:read', 'changes:read', 'products:read', 'orders:read'])
    const productsCursor = (await app.get('/gatehouse/v1/products?limit=1', token)).json().pagination.nextCursor as string
    const changesCursor = (await app.get('/gatehouse/v1/changes?types=products&limit=1', token)).json().pagination.nextCursor as string
    const ownToken = 'etl-batch-42:' + 'x'.repeat(2035)
    assert.equal(ownToken.length, 2048)

    const write = async (body: Record<string, unknown>) => {
      const res = await app.post(CHECKPOINT, body, token)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data
    }
    const checkpointAt = new Date(Date.now() - 60_000).toISOString()
    assert.equal((await write({ resourceType: 'products', cursor: productsCursor, checkpointAt })).cursor, productsCursor)
    assert.equal((await write({ resourceType: 'orders', cursor: changesCursor, checkpointAt })).cursor, changesCursor)
    assert.equal((await write({ resourceType: 'variants', cursor: ownToken, checkpointAt })).cursor, ownToken)

    const lag = async () => Object.fromEntries(((await app.get(LAG, token)).json().data.checkpoints as { resourceType: string; cursor: string; positionBy: string; pendingChanges: number }[])
      .map((c) => [c.resourceType, [c.cursor === productsCursor ? 'products-cursor' : c.cursor === changesCursor ? 'changes-cursor' : c.cursor === ownToken ? 'own' : c.cursor, c.positionBy, c.pendingChanges]]))
    // A list's cursor and the client's own token are kept, and lag falls back to checkpointAt
    // (both products were written after it). A change-feed cursor of other types says nothing
    // about orders: the same.
    assert.deepEqual(await lag(), {
      products: ['products-cursor', 'checkpointAt', 2],
      orders: ['changes-cursor', 'checkpointAt', 0],
      variants: ['own', 'checkpointAt', 0],
    })

    // A change-feed cursor that follows products positions the products checkpoint: one
    // product change after it is pending.
    await write({ resourceType: 'products', cursor: changesCursor })
    const [products] = (await app.get(`${LAG}?resourceType=products`, token)).json().data.checkpoints
    assert.deepEqual([products.positionBy, products.pendingChanges], ['cursor', 1])
  })
}
