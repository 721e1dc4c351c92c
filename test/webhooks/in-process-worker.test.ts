// The in-process worker's lifecycle: buildApp (what `gatehouse serve` runs) starts it when
// delivery is configured, close() stops it and signs its heartbeat off; webhookWorker:
// false leaves delivery to `gatehouse worker` processes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { pino } from 'pino'
import { buildApp } from '../../src/compose/app.js'
import { testDatabase, testSettings } from '../helpers/test-app.js'
import { startReceiver } from './helpers/receiver.js'

test('buildApp runs the delivery worker by default and stops it on close; webhookWorker: false does not', async () => {
  const receiver = await startReceiver()
  const database = await testDatabase('sqlite')
  const settings = testSettings({ PLUGIN_GATEHOUSE_DATABASE_URL: database.url, PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'lifecycle' })
  const workers = async () => (await database.db.selectFrom('webhook_workers').select('worker_id').execute()).length
  try {
    const quiet = await buildApp({ settings, database, logger: pino({ level: 'silent' }), webhookWorker: false })
    await quiet.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
    await new Promise((r) => setTimeout(r, 300))
    assert.equal(receiver.received.length, 0, 'without a worker the event waits in the queue')
    assert.equal((await quiet.services.webhooks.status()).inProcessWorker, false)
    await quiet.close()

    const served = await buildApp({ settings, database, logger: pino({ level: 'silent' }) })
    assert.equal((await served.services.webhooks.status()).inProcessWorker, true)
    await receiver.waitFor((r) => r.length === 1, 10_000)
    assert.equal(await workers(), 1, 'the running worker has a heartbeat row')
    await served.close()
    assert.equal(await workers(), 0, 'close() stops the worker and removes its heartbeat')
    const row = await database.db.selectFrom('webhook_deliveries').select('status').executeTakeFirstOrThrow()
    assert.equal(row.status, 'delivered')
  } finally {
    await database.destroy()
    await receiver.close()
  }
})
