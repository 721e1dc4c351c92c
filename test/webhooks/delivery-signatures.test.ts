// Real deliveries of entry, product and order changes: the payload is the spec's fields
// plus the change's feed position (also a header) and origin, and both signatures verify, with node:crypto and with the standardwebhooks
// package a receiver would use; a tampered body or a wrong secret fails both.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { Webhook } from 'standardwebhooks'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { startReceiver, payloadOf, type Received } from './helpers/receiver.js'
import { standardWebhooksSecret } from '../../src/webhooks/signer.js'

const SECRET = 'test-secret-ünïcode-1234567890'
const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version

/** What a receiver in Node does: HMAC over "<timestamp>.<raw body>", compared in constant time. */
function verifyGatehouse(r: Received, secret: string): boolean {
  const ts = String(r.headers['x-gatehouse-webhook-timestamp'])
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(`${ts}.${r.body}`).digest('hex'))
  const given = Buffer.from(String(r.headers['x-gatehouse-webhook-signature']))
  return given.length === expected.length && timingSafeEqual(given, expected)
}

for (const dialect of await testDialects()) {
  test(`${dialect}: deliveries of entry, product and order changes carry the spec payload and verifiable signatures`, async () => {
    const receiver = await startReceiver()
    const app = await buildTestApp({
      dialect, webhookWorker: { pollMs: 50 },
      env: { PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: SECRET },
    })
    try {
      const { store } = app.services
      await store.create('sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'article', name: 'Article' }] })
      const entry = await store.create('entries', { section: 'news', type: 'article', title: 'Hello', slug: 'hello' })
      await store.update('entries', entry.id as number, { title: 'Hello again' })
      await store.remove('entries', entry.id as number)
      const product = await store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
      await store.create('variants', { productId: product.id, sku: 'MUG-1', title: 'Mug', price: 9, stock: 4 })
      await store.create('tags', { group: 'g', title: 'Not emitted', slug: 'not-emitted' })
      const order = await store.create('orders', { number: 'c'.repeat(32), currency: 'EUR', status: 'pending', email: 'buyer@example.com', totalPrice: 5, totalPaid: 5 })

      // entry created/updated/deleted, product created + updated (its variant), order created.
      await receiver.waitFor((r) => r.length >= 6)
      await new Promise((r) => setTimeout(r, 200))
      assert.equal(receiver.received.length, 6, 'sections, variants and tags emit no events of their own')
      const payloads = receiver.received.map(payloadOf).sort((a, b) => a.occurredAt.localeCompare(b.occurredAt) || a.resourceType.localeCompare(b.resourceType))
      assert.deepEqual(payloads.map((p) => `${p.resourceType}:${p.resourceId}:${p.action}`).sort(), [
        `entry:${entry.id}:created`, `entry:${entry.id}:deleted`, `entry:${entry.id}:updated`,
        `order:${order.id}:created`, `product:${product.id}:created`, `product:${product.id}:updated`,
      ])
      for (const p of payloads) {
        assert.deepEqual(Object.keys(p), ['id', 'occurredAt', 'resourceType', 'resourceId', 'action', 'updatedAt', 'position', 'origin', 'snapshot'])
        assert.deepEqual(p.origin, { kind: 'system' }, 'writes of the service itself')
        assert.match(p.id, /^evt_[0-9a-f]{32}$/)
        assert.ok(!Number.isNaN(Date.parse(p.occurredAt)) && !Number.isNaN(Date.parse(p.updatedAt)))
      }
      assert.equal(new Set(payloads.map((p) => p.id)).size, 6, 'event ids are unique')
      const byKey = (k: string) => payloads.find((p) => `${p.resourceType}:${p.action}` === k)
      assert.equal(byKey('entry:deleted').snapshot, null, 'deletes are tombstones')
      assert.equal(byKey('entry:updated').snapshot.title, 'Hello again')
      assert.equal(byKey('product:updated').snapshot.totalStock, 4, 'a variant change is a product update with the new stock')
      assert.equal(byKey('order:created').snapshot.number, 'c'.repeat(32))
      assert.equal('email' in byKey('order:created').snapshot, false, 'sensitive order fields never leave in a webhook')

      // One position everywhere: the header, the body and the feed name each change the same way.
      const feedToken = await app.issueToken(['changes:read', 'entries:read', 'entries:read_all_statuses', 'products:read', 'orders:read'])
      const feed = (await app.get('/gatehouse/v1/changes?types=entries,products,orders&limit=200', feedToken)).json().data as { position: number; resourceType: string; resourceId: number; action: string }[]
      for (const r of receiver.received) {
        const p = payloadOf(r)
        assert.equal(r.headers['x-gatehouse-position'], String(p.position))
        const item = feed.find((i) => i.position === p.position)
        assert.ok(item, `position ${p.position} is a change of the feed`)
        assert.deepEqual([item.resourceId, item.action], [p.resourceId, p.action])
      }
      for (const r of receiver.received) {
        assert.equal(r.headers['content-type'], 'application/json')
        assert.equal(r.headers['user-agent'], `Gatehouse-Webhooks/${version}`)
        assert.match(String(r.headers['x-gatehouse-webhook-id']), /^whd_[0-9a-f]{32}$/)
        assert.equal(r.headers['webhook-id'], r.headers['x-gatehouse-webhook-id'])
        assert.equal(r.headers['webhook-timestamp'], r.headers['x-gatehouse-webhook-timestamp'])
        const ts = Number(r.headers['x-gatehouse-webhook-timestamp'])
        assert.ok(Math.abs(ts - Date.now() / 1000) < 30, 'timestamp is Unix seconds, now')
        assert.match(String(r.headers['x-gatehouse-webhook-signature']), /^sha256=[0-9a-f]{64}$/)
        assert.match(String(r.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/)

        // node:crypto
        assert.equal(verifyGatehouse(r, SECRET), true)
        assert.equal(verifyGatehouse(r, SECRET + 'x'), false, 'a wrong secret fails')
        assert.equal(verifyGatehouse({ ...r, body: r.body.replace('"action"', '"acti0n"') }, SECRET), false, 'a tampered body fails')

        // standardwebhooks, with the secret in its whsec_ form (as docs/webhooks.md says).
        const headers = r.headers as Record<string, string>
        const wh = new Webhook(standardWebhooksSecret(SECRET))
        assert.deepEqual(wh.verify(r.body, headers), JSON.parse(r.body))
        assert.equal(standardWebhooksSecret(SECRET), 'whsec_' + Buffer.from(SECRET).toString('base64'))
        assert.throws(() => wh.verify(r.body + ' ', headers), /No matching signature/)
        assert.throws(() => new Webhook(standardWebhooksSecret('other')).verify(r.body, headers), /No matching signature/)
      }

      // Delivered rows are recorded; the secret appears in no stored column.
      const rows = await app.database.db.selectFrom('webhook_deliveries').selectAll().execute()
      assert.equal(rows.length, 6)
      assert.ok(rows.every((r) => r.status === 'delivered' && Number(r.attempts) === 1 && r.delivered_at !== null))
      assert.ok(!JSON.stringify(rows).includes(SECRET), 'the secret is never stored in the queue')
    } finally {
      await app.close()
      await receiver.close()
    }
  })
}

test('the standardwebhooks raw-key option verifies an ASCII secret as given', async () => {
  const receiver = await startReceiver()
  const app = await buildTestApp({
    dialect: 'sqlite', webhookWorker: { pollMs: 50 },
    env: { PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'plain-ascii-secret' },
  })
  try {
    const p = await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
    await receiver.waitFor((r) => r.length >= 1)
    const r = receiver.received[0]
    const verified = new Webhook('plain-ascii-secret', { format: 'raw' }).verify(r.body, r.headers as Record<string, string>) as { resourceId: number }
    assert.equal(verified.resourceId, p.id)
  } finally {
    await app.close()
    await receiver.close()
  }
})

test('a whsec_ secret (Standard Webhooks form) verifies with the standardwebhooks library given that same string; the Gatehouse header keeps the secret as configured', async () => {
  // What Standard Webhooks tooling generates: whsec_ + base64 of random key bytes.
  const keyBytes = Buffer.from('8c1f0e3b7a9d4c2e6f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c', 'hex')
  const whsec = 'whsec_' + keyBytes.toString('base64')
  const receiver = await startReceiver()
  const app = await buildTestApp({
    dialect: 'sqlite', webhookWorker: { pollMs: 50 },
    env: { PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: whsec },
  })
  try {
    await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
    await receiver.waitFor((r) => r.length >= 1)
    const r = receiver.received[0]
    const headers = r.headers as Record<string, string>
    // The receiver configures the library with exactly the string it configured us with.
    assert.deepEqual(new Webhook(whsec).verify(r.body, headers), JSON.parse(r.body))
    assert.equal(standardWebhooksSecret(whsec), whsec, 'a whsec_ secret is already in the form receivers use')
    // The key is the decoded bytes, not the string's UTF-8 bytes (what failed before).
    assert.throws(() => new Webhook('whsec_' + Buffer.from(whsec).toString('base64')).verify(r.body, headers), /No matching signature/)
    // X-Gatehouse-Webhook-Signature: the spec's key, the secret exactly as configured.
    assert.equal(verifyGatehouse(r, whsec), true)
    assert.equal(verifyGatehouse(r, keyBytes.toString('latin1')), false)
  } finally {
    await app.close()
    await receiver.close()
  }
})
