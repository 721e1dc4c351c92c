// Scale-out on PostgreSQL: three `gatehouse worker` processes share one queue while 3,000
// events are written; with a healthy receiver every event is delivered, none twice, and
// the work is spread over all three (claims with FOR UPDATE SKIP LOCKED).
// npm test: timing (every delivery answered within the delivery timeout, recorded within 10 s)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDatabase, testDialects } from '../helpers/test-app.js'
import { startReceiver, payloadOf } from './helpers/receiver.js'
import { killWorker, processDatabaseUrl, startWorkerProcess, type WorkerProcess } from './helpers/worker-processes.js'

const EVENTS = 3000

for (const dialect of (await testDialects()).filter((d) => d === 'postgres')) {
  test(`${dialect}: three worker processes deliver 3,000 events exactly once`, async (t) => {
    const receiver = await startReceiver()
    const database = await testDatabase(dialect)
    const env = {
      PLUGIN_GATEHOUSE_DATABASE_URL: processDatabaseUrl(database), PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url,
      PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'scale-secret',
    }
    const app = await buildTestApp({ dialect, database, env })
    const workers: WorkerProcess[] = []
    try {
      const started = await Promise.all([0, 1, 2].map(() => startWorkerProcess(env, ['--poll-ms', '50', '--concurrency', '16'])))
      workers.push(...started)
      const t0 = Date.now()
      // Written while the workers run: 30 transactions of 100 products each.
      for (let batch = 0; batch < EVENTS / 100; batch++) {
        await app.services.store.transaction((w) => w.createMany('products', Array.from({ length: 100 }, (_, i) => ({ type: 'scale', title: `p${batch}-${i}`, slug: `scale-${batch}-${i}` }))))
      }
      await receiver.waitFor((r) => r.length >= EVENTS, 60_000)
      const until = Date.now() + 10_000
      for (;;) {
        const left = await app.database.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n')).where('status', '!=', 'delivered').executeTakeFirstOrThrow()
        if (Number(left.n) === 0) break
        if (Date.now() > until) throw new Error(`${left.n} not marked delivered`)
        await new Promise((r) => setTimeout(r, 50))
      }
      const elapsed = Date.now() - t0
      for (const w of workers) w.child.kill('SIGTERM')
      assert.deepEqual(await Promise.all(workers.map((w) => w.exited)), [0, 0, 0])
      await new Promise((r) => setTimeout(r, 100))

      assert.equal(receiver.received.length, EVENTS, 'no event was sent twice')
      const ids = receiver.received.map((r) => payloadOf(r).id as string)
      assert.equal(new Set(ids).size, EVENTS)
      const rows = await app.database.db.selectFrom('webhook_deliveries').select(['event_id', 'lease_owner', 'attempts']).execute()
      assert.deepEqual(new Set(rows.map((r) => r.event_id as string)), new Set(ids), 'every queued event, and only those')
      assert.ok(rows.every((r) => Number(r.attempts) === 1))
      const byWorker = new Map<string, number>()
      for (const r of rows) byWorker.set(r.lease_owner as string, (byWorker.get(r.lease_owner as string) ?? 0) + 1)
      assert.equal(byWorker.size, 3, 'all three workers delivered')
      t.diagnostic(`${EVENTS} delivered in ${elapsed} ms (writes included); per worker: ${[...byWorker.values()].join(', ')}`)
    } finally {
      for (const w of workers) await killWorker(w)
      await app.close()
      await database.destroy()
      await receiver.close()
    }
  })
}
