// On PostgreSQL a delivery worker does not poll for new events: the commit that queues them
// notifies every process (NOTIFY), and a `gatehouse worker` in another process wakes at once,
// also when its idle poll is a minute long. A DLQ replay from another process wakes it too.
// npm test: timing (a delivery within a second of its commit)
// npm test: waits (mostly waiting, little CPU: runs in the waiting lane beside the other groups)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDatabase, testDialects } from '../helpers/test-app.js'
import { startReceiver, payloadOf } from './helpers/receiver.js'
import { killWorker, processDatabaseUrl, startWorkerProcess } from './helpers/worker-processes.js'

if ((await testDialects()).includes('postgres')) {
  test('postgres: a worker process with a one-minute poll delivers a new event within a second of its commit', async (t) => {
    let fail = true
    // Each clean-up noted as soon as there is something to clean, run last first: a worker
    // that failed to start once left the receiver and the app open, and its process waiting.
    const cleanUp: (() => Promise<void>)[] = []
    t.after(async () => { for (const c of cleanUp.reverse()) await c() })
    const receiver = await startReceiver('/hook', (_r, res) => { res.writeHead(fail ? 500 : 200).end() })
    cleanUp.push(() => receiver.close())
    const database = await testDatabase('postgres')
    cleanUp.push(() => database.destroy())
    const env = {
      PLUGIN_GATEHOUSE_DATABASE_URL: processDatabaseUrl(database), PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url,
      PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'notify-secret', PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS: '1',
    }
    // The writer runs no worker of its own.
    const app = await buildTestApp({ dialect: 'postgres', database, env })
    cleanUp.push(() => app.close())
    const worker = await startWorkerProcess(env, ['--poll-ms', '60000'])
    cleanUp.push(() => killWorker(worker))
    // Let the worker finish its first look at the (empty) queue and go to sleep.
    await new Promise((r) => setTimeout(r, 500))

    // Timed from the commit (create has returned) to the delivery's arrival at the receiver,
    // not to when this test next looked: on a loaded machine those differ by hundreds of ms.
    const product = await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
    const committed = Date.now()
    await receiver.waitFor((r) => r.length === 1)
    const latency = receiver.received[0].at - committed
    assert.equal(payloadOf(receiver.received[0]).resourceId, product.id)
    assert.ok(latency < 1000, `delivered ${latency} ms after the commit`)

    // One attempt, answered 500: a dead letter. Replayed from this process, delivered by the worker.
    const until = Date.now() + 15_000
    while (!(await app.database.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'failed').executeTakeFirst())) {
      if (Date.now() > until) throw new Error('no dead letter')
      await new Promise((r) => setTimeout(r, 20))
    }
    fail = false
    const replay = await app.services.webhooks.replay({ mode: 'all', limit: 10 }, { type: 'cli', id: 'test' })
    const replayed = Date.now()
    assert.equal(replay.replayed, 1)
    await receiver.waitFor((r) => r.length === 2)
    const sent = receiver.received[1].at - replayed
    assert.ok(sent < 1000, `replayed delivery sent ${sent} ms after the replay`)
  })
}
