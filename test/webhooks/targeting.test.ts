// Subscription targeting: firehose while no usable credential has webhook interests;
// targeted as soon as one does, sending only matching events and recording which
// credentials matched each delivery. Revoked and paused credentials do not count.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects, type TestApp } from '../helpers/test-app.js'
import { startReceiver, payloadOf } from './helpers/receiver.js'

const rowsOf = async (app: TestApp) =>
  (await app.database.db.selectFrom('webhook_deliveries').select(['resource_type', 'action', 'routing_mode', 'matched_credentials']).orderBy('id').execute())
    .map((r) => `${r.resource_type}:${r.action}:${r.routing_mode}:${JSON.parse(r.matched_credentials as string).join('+')}`)

for (const dialect of await testDialects()) {
  test(`${dialect}: firehose without interests, targeted with them, matched credentials recorded`, async () => {
    const receiver = await startReceiver()
    const app = await buildTestApp({
      dialect, webhookWorker: { pollMs: 20 },
      env: { PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'sec' },
    })
    try {
      const { store, credentials } = app.services
      await credentials.create({ label: 'reader', scopes: ['products:read'] })
      // Interests of a revoked or paused credential do not switch targeting on.
      const gone = await credentials.create({ label: 'gone', scopes: ['entries:read'], webhookInterests: [{ resourceType: 'entry', actions: ['created'] }] })
      await credentials.setStatus(gone.credential.id, 'revoked')
      const paused = await credentials.create({ label: 'paused', scopes: ['entries:read'], webhookInterests: [{ resourceType: 'order', actions: ['created'] }] })
      await credentials.setStatus(paused.credential.id, 'paused')

      // Firehose: everything goes, nobody matched.
      await store.create('sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'a', name: 'A' }] })
      const entry = await store.create('entries', { section: 'news', type: 'a', title: 'E', slug: 'e' })
      const product = await store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
      await receiver.waitFor((r) => r.length === 2)
      assert.deepEqual(await rowsOf(app), ['entry:created:firehose:', 'product:created:firehose:'])

      // Targeted: A wants product updates; B wants product updates and deletes, and new orders.
      const a = await credentials.create({ label: 'A', scopes: ['products:read'], webhookInterests: [{ resourceType: 'product', actions: ['updated'] }] })
      const b = await credentials.create({ label: 'B', scopes: ['products:read', 'orders:read'], webhookInterests: [
        { resourceType: 'product', actions: ['updated', 'deleted'] }, { resourceType: 'order', actions: ['created'] }] })
      const [A, B] = [a.credential.id, b.credential.id]
      await store.update('entries', entry.id as number, { title: 'E2' })
      await store.create('products', { type: 'mug', title: 'Cup', slug: 'cup' })
      await store.update('products', product.id as number, { title: 'Mug 2' })
      await store.remove('products', product.id as number)
      const order = await store.create('orders', { number: 'd'.repeat(32), currency: 'EUR', status: 'pending' })
      await store.update('orders', order.id as number, { status: 'processing' })
      await receiver.waitFor((r) => r.length === 5)
      await new Promise((r) => setTimeout(r, 200))
      assert.equal(receiver.received.length, 5, 'only matching events are sent')
      assert.deepEqual((await rowsOf(app)).slice(2), [
        `product:updated:targeted:${[A, B].sort().join('+')}`,
        `product:deleted:targeted:${B}`,
        `order:created:targeted:${B}`,
      ])
      assert.deepEqual(receiver.received.slice(2).map(payloadOf).map((p) => `${p.resourceType}:${p.action}`).sort(),
        ['order:created', 'product:deleted', 'product:updated'])

      // When every interested credential is revoked, delivery is back to firehose.
      await credentials.setStatus(A, 'revoked')
      await credentials.setStatus(B, 'revoked')
      await store.update('entries', entry.id as number, { title: 'E3' })
      await receiver.waitFor((r) => r.length === 6)
      assert.equal((await rowsOf(app)).at(-1), 'entry:updated:firehose:')
    } finally {
      await app.close()
      await receiver.close()
    }
  })
}
