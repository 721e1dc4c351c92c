// The outbox is written in the content write's own transaction: a write that fails leaves
// no delivery behind (also when it fails after the outbox rows were inserted), a write
// that commits always has its deliveries, and nothing is queued while delivery is not
// configured.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects, type TestApp } from '../helpers/test-app.js'

const ENV = { PLUGIN_GATEHOUSE_WEBHOOK_URL: 'http://127.0.0.1:9/hook', PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'sec' }
const count = async (app: TestApp, table: string) =>
  Number((await app.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)

for (const dialect of await testDialects()) {
  test(`${dialect}: a failed write transaction leaves no outbox row; a committed one always has its rows`, async () => {
    const app = await buildTestApp({ dialect, env: ENV })
    try {
      const { store } = app.services
      await assert.rejects(store.transaction(async (w) => {
        await w.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
        throw new Error('boom')
      }), /boom/)
      assert.equal(await count(app, 'webhook_deliveries'), 0)

      // A hook after the outbox fails: the outbox rows were inserted, then rolled back.
      let failNext = true
      store.addChangeHook(async (tx) => {
        if (!failNext) return
        assert.equal(Number((await tx.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), 1,
          'inside the transaction the outbox row exists')
        throw new Error('late failure')
      })
      await assert.rejects(store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' }), /late failure/)
      assert.equal(await count(app, 'webhook_deliveries'), 0, 'no outbox row survives a failed write')
      assert.equal(await count(app, 'products'), 0)
      assert.equal(await count(app, 'change_log'), 0)
      failNext = false

      // Committed: one row per event, linked to its change-log entry, in one transaction.
      await store.transaction(async (w) => {
        for (const slug of ['a', 'b', 'c']) await w.create('products', { type: 'mug', title: slug, slug })
      })
      const rows = await app.database.db.selectFrom('webhook_deliveries').select(['change_seq', 'resource_id', 'status', 'body']).orderBy('id').execute()
      const changes = await app.database.db.selectFrom('change_log').select(['seq', 'resource_id']).orderBy('seq').execute()
      assert.deepEqual(rows.map((r) => [Number(r.change_seq), Number(r.resource_id)]), changes.map((c) => [Number(c.seq), Number(c.resource_id)]))
      assert.ok(rows.every((r) => r.status === 'queued'))
      assert.deepEqual(rows.map((r) => JSON.parse(r.body as string).snapshot.slug), ['a', 'b', 'c'])

      // A large import queues every event (batched inserts).
      await store.transaction((w) => w.createMany('tags', Array.from({ length: 10 }, (_, i) => ({ group: 'g', title: `t${i}`, slug: `t${i}` }))))
      await store.transaction((w) => w.createMany('products', Array.from({ length: 2500 }, (_, i) => ({ type: 'bulk', title: `p${i}`, slug: `bulk-${i}` }))))
      assert.equal(await count(app, 'webhook_deliveries'), 3 + 2500, 'tags emit nothing; all 2,500 products are queued')
    } finally {
      await app.close()
    }
  })

  test(`${dialect}: nothing is queued while no webhook URL is configured`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
      assert.equal(await count(app, 'change_log'), 1)
      assert.equal(await count(app, 'webhook_deliveries'), 0)
    } finally {
      await app.close()
    }
  })
}
