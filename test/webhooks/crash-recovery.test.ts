// Crash safety: with 1,000 events queued, the worker process is killed with SIGKILL in
// the middle of its run and started again. Its leases expire, so every event reaches the
// receiver at least once, none is lost, and a duplicate is the same delivery again: same
// delivery id, same event id, same bytes.
// npm test: timing (a worker process killed in the middle of its run)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDatabase, testDialects } from '../helpers/test-app.js'
import { startReceiver, payloadOf } from './helpers/receiver.js'
import { killWorker, processDatabaseUrl, startWorkerProcess, type WorkerProcess } from './helpers/worker-processes.js'

const EVENTS = 1000

for (const dialect of await testDialects()) {
  test(`${dialect}: a worker killed mid-run and restarted loses no event`, async (t) => {
    // A little latency per request so the kill lands while attempts are in flight.
    const receiver = await startReceiver('/hook', (_r, res) => { setTimeout(() => res.writeHead(200).end(), 10) })
    const database = await testDatabase(dialect)
    const env = {
      PLUGIN_GATEHOUSE_DATABASE_URL: processDatabaseUrl(database), PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url,
      // 5 s to answer (the lease below must be longer): with 1 s, on a loaded machine an
      // answer of this test's own receiver came late, the attempt was retried 30 s later
      // (the retry base), past the wait below, and its retry was a duplicate the kill did not make.
      PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'crash-secret', PLUGIN_GATEHOUSE_WEBHOOK_TIMEOUT_SECONDS: '5',
    }
    const app = await buildTestApp({ dialect, database, env })
    let worker: WorkerProcess | undefined
    try {
      await app.services.store.transaction((w) => w.createMany('products', Array.from({ length: EVENTS }, (_, i) => ({ type: 'crash', title: `p${i}`, slug: `crash-${i}` }))))
      const rows = await app.database.db.selectFrom('webhook_deliveries').select(['event_id', 'delivery_id']).execute()
      assert.equal(rows.length, EVENTS)

      const args = ['--lease-seconds', '6', '--poll-ms', '50', '--concurrency', '16']
      worker = await startWorkerProcess(env, args)
      await receiver.waitFor((r) => r.length >= 300, 30_000)
      worker.child.kill('SIGKILL')
      assert.equal(await worker.exited, 'SIGKILL')
      const atKill = receiver.received.length
      const queued = await app.database.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'queued').executeTakeFirstOrThrow()
      assert.ok(atKill < EVENTS && Number(queued.n) > 0, `killed mid-run (${atKill} received, ${queued.n} still queued)`)

      worker = await startWorkerProcess(env, args)
      const until = Date.now() + 30_000
      for (;;) {
        const left = await app.database.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n')).where('status', '!=', 'delivered').executeTakeFirstOrThrow()
        if (Number(left.n) === 0) break
        if (Date.now() > until) throw new Error(`${left.n} deliveries never completed`)
        await new Promise((r) => setTimeout(r, 50))
      }
      worker.child.kill('SIGTERM')
      assert.equal(await worker.exited, 0, 'a SIGTERM stops the worker cleanly')

      const received = new Map<string, string[]>()
      for (const r of receiver.received) {
        const id = String(r.headers['x-gatehouse-webhook-id'])
        received.set(id, [...(received.get(id) ?? []), r.body])
      }
      for (const row of rows) {
        const bodies = received.get(row.delivery_id as string)
        assert.ok(bodies && bodies.length >= 1, `event ${row.event_id} was delivered`)
        assert.ok(bodies.every((b) => b === bodies[0]), 'a duplicate is byte for byte the same delivery')
        assert.equal(JSON.parse(bodies[0]).id, row.event_id, 'and carries the same event id')
      }
      assert.equal(received.size, EVENTS, 'nothing but the queued deliveries arrived')
      const eventIds = new Set(receiver.received.map((r) => payloadOf(r).id))
      assert.equal(eventIds.size, EVENTS)
      const duplicates = receiver.received.length - EVENTS
      // Sent again can only be what was in flight at the kill (concurrency 16) or delivered
      // but not yet recorded (the worker records successes in batches of at most 64).
      assert.ok(duplicates >= 0 && duplicates <= 16 + 64, `duplicates: ${duplicates}`)
      t.diagnostic(`received ${receiver.received.length} for ${EVENTS} events (${duplicates} duplicates after the kill at ${atKill})`)
    } finally {
      await killWorker(worker)
      await app.close()
      await database.destroy()
      await receiver.close()
    }
  })
}
