// Run reports: `started` claims the due occurrence under a lease, a second worker is refused,
// the holder renews, terminal reports end the run for good, a paused workflow cannot start,
// and a run whose lease runs out is abandoned (by the timer) and its occurrence is due again.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { testDialects } from '../helpers/test-app.js'
import { dataOf } from '../admin/helpers/admin-client.js'
import { jobsApp, WORKFLOWS } from './helpers/jobs-app.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: started claims the due occurrence; another worker is refused; the holder renews; a run that ended stays ended`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T08:10:00Z' })
    t.after(() => app.close())
    const w = await app.worker()
    const wf = await app.define({ credentialId: w.id })
    assert.equal(wf.isDue, false)
    assert.equal(wf.nextDueAt, '2025-06-02T09:00:00.000Z')

    const early = await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'a' })
    assert.equal(early.statusCode, 409)
    assert.match(early.json().error.message, /not due; next due at 2025-06-02T09:00:00.000Z/)

    app.clock.set('2025-06-02T09:05:00Z')
    const claimed = app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'a', summary: 'syncing' })
    const run = (await claimed).json().data
    assert.equal((await claimed).statusCode, 200)
    assert.equal(run.status, 'started')
    assert.equal(run.occurrence, '2025-06-02T09:00:00.000Z')
    assert.equal(run.workerId, 'a')
    assert.equal(run.leaseExpiresAt, '2025-06-02T09:20:00.000Z', 'the default lease is 15 minutes')

    const second = await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'b' })
    assert.equal(second.statusCode, 409)
    assert.equal(second.json().error.code, 'CONFLICT')
    assert.match(second.json().error.message, new RegExp(`held by run ${run.id} \\(worker a\\)`))
    const stolen = await app.report(w.token, { workflowId: wf.id, status: 'started', runId: run.id, workerId: 'b' })
    assert.equal(stolen.statusCode, 409, 'the same runId from another worker does not renew')

    app.clock.set('2025-06-02T09:12:00Z')
    const renewed = await app.report(w.token, { workflowId: wf.id, status: 'started', runId: run.id, workerId: 'a' })
    assert.equal(renewed.statusCode, 200, renewed.body)
    assert.equal(renewed.json().data.id, run.id)
    assert.equal(renewed.json().data.leaseExpiresAt, '2025-06-02T09:27:00.000Z')

    const foreign = await app.report(w.token, { workflowId: wf.id, status: 'succeeded', runId: run.id, workerId: 'b' })
    assert.equal(foreign.statusCode, 409, 'only the holder reports on its run')

    const waiting = await app.report(w.token, { workflowId: wf.id, status: 'approval_requested', workerId: 'a', summary: 'waiting for a price approval' })
    assert.equal(waiting.statusCode, 200)
    assert.equal(waiting.json().data.status, 'approval_requested', 'approval_requested is not terminal')
    assert.equal(waiting.json().data.finishedAt, null)

    const done = await app.report(w.token, { workflowId: wf.id, status: 'succeeded', runId: run.id, workerId: 'a', summary: 'synced 2 products', outcomeRefs: [{ type: 'product', id: '1' }], metadata: { products: 2 } })
    assert.equal(done.statusCode, 200, done.body)
    assert.deepEqual(
      { status: done.json().data.status, summary: done.json().data.summary, lease: done.json().data.leaseExpiresAt, finishedAt: done.json().data.finishedAt, refs: done.json().data.outcomeRefs, metadata: done.json().data.metadata },
      { status: 'succeeded', summary: 'synced 2 products', lease: null, finishedAt: '2025-06-02T09:12:00.000Z', refs: [{ type: 'product', id: '1' }], metadata: { products: 2 } },
    )
    for (const status of ['failed', 'succeeded', 'approval_requested', 'started']) {
      const again = await app.report(w.token, { workflowId: wf.id, status, runId: run.id, workerId: 'a' })
      assert.equal(again.statusCode, 409, `${status} after succeeded`)
      assert.match(again.json().error.message, /already succeeded/)
    }
    const next = await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'a' })
    assert.equal(next.statusCode, 409, 'the occurrence is done: the next one is at 10:00')
    assert.match(next.json().error.message, /next due at 2025-06-02T10:00:00.000Z/)

    const shown = (await app.get(`${WORKFLOWS}/show?id=${wf.id}`, w.token)).json().data
    assert.deepEqual({ isDue: shown.isDue, nextDueAt: shown.nextDueAt, latest: shown.latestRun.status }, { isDue: false, nextDueAt: '2025-06-02T10:00:00.000Z', latest: 'succeeded' })

    // Missed occurrences are not owed one by one: at 13:30 the due occurrence is 13:00.
    app.clock.set('2025-06-02T13:30:00Z')
    const late = await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'a' })
    assert.equal(late.json().data.occurrence, '2025-06-02T13:00:00.000Z')
    const failed = await app.report(w.token, { workflowId: wf.id, status: 'failed', workerId: 'a', summary: 'upstream down' })
    assert.equal(failed.json().data.status, 'failed')
    const blockedLater = await app.report(w.token, { workflowId: wf.id, status: 'blocked', workerId: 'a' })
    assert.equal(blockedLater.statusCode, 409, 'no open run is left to report on')
  })

  test(`${dialect}: a paused workflow cannot start; resuming starts its schedule from then`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T08:10:00Z' })
    t.after(() => app.close())
    const w = await app.worker()
    const wf = await app.define({ credentialId: w.id })
    dataOf(await app.admin.post(`/workflows/${wf.id}/pause`))
    app.clock.set('2025-06-02T11:05:00Z')
    const refused = await app.report(w.token, { workflowId: wf.id, status: 'started' })
    assert.equal(refused.statusCode, 409)
    assert.match(refused.json().error.message, /paused/)
    assert.equal((await app.get(`${WORKFLOWS}/show?id=${wf.id}`, w.token)).json().data.nextDueAt, null)

    const resumed = dataOf(await app.admin.post(`/workflows/${wf.id}/resume`))
    assert.equal(resumed.nextDueAt, '2025-06-02T12:00:00.000Z', 'the 09:00 to 11:00 occurrences passed while paused and are not owed')
    app.clock.set('2025-06-02T12:01:00Z')
    assert.equal((await app.report(w.token, { workflowId: wf.id, status: 'started' })).statusCode, 200)
  })

  test(`${dialect}: a lease that runs out is abandoned by the sweep and the occurrence is due again`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T09:05:00Z' })
    t.after(() => app.close())
    const w = await app.worker()
    app.clock.set('2025-06-02T08:30:00Z')
    const wf = await app.define({ credentialId: w.id })
    app.clock.set('2025-06-02T09:05:00Z')
    const first = (await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'a' })).json().data

    app.clock.set('2025-06-02T09:19:59Z')
    assert.equal(await app.services.jobs.sweep(), 0, 'the lease still holds')
    app.clock.set('2025-06-02T09:20:00Z')
    assert.equal(await app.services.jobs.sweep(), 1)
    const row = await app.database.db.selectFrom('workflow_runs').select(['status', 'finished_at']).where('id', '=', first.id).executeTakeFirstOrThrow()
    assert.equal(row.status, 'abandoned')
    const shown = (await app.get(`${WORKFLOWS}/show?id=${wf.id}`, w.token)).json().data
    assert.deepEqual({ isDue: shown.isDue, nextDueAt: shown.nextDueAt }, { isDue: true, nextDueAt: '2025-06-02T09:00:00.000Z' })

    const late = await app.report(w.token, { workflowId: wf.id, status: 'succeeded', runId: first.id, workerId: 'a' })
    assert.equal(late.statusCode, 409)
    assert.match(late.json().error.message, /already abandoned/)
    const second = await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'b' })
    assert.equal(second.statusCode, 200, second.body)
    assert.equal(second.json().data.occurrence, '2025-06-02T09:00:00.000Z', 'the same occurrence, claimed again')
    assert.notEqual(second.json().data.id, first.id)

    const audit = await app.jobAudit()
    const abandoned = audit.find((a) => a.action === 'run.abandoned')
    assert.deepEqual({ actor: abandoned?.actor_type, run: abandoned?.entity_id }, { actor: 'system', run: first.id })
  })

  test(`${dialect}: a report on a run whose lease ran out is refused, and the run is abandoned before the timer comes`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T08:30:00Z' })
    t.after(() => app.close())
    const w = await app.worker()
    const wf = await app.define({ credentialId: w.id })
    app.clock.set('2025-06-02T09:01:00Z')
    const run = (await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'a' })).json().data
    app.clock.set('2025-06-02T09:30:00Z')
    const late = await app.report(w.token, { workflowId: wf.id, status: 'succeeded', runId: run.id, workerId: 'a' })
    assert.equal(late.statusCode, 409)
    assert.match(late.json().error.message, /lease of run .* ran out at 2025-06-02T09:16:00.000Z; the run is abandoned/)
    const row = await app.database.db.selectFrom('workflow_runs').select('status').where('id', '=', run.id).executeTakeFirstOrThrow()
    assert.equal(row.status, 'abandoned')
    const renew = await app.report(w.token, { workflowId: wf.id, status: 'started', runId: run.id, workerId: 'a' })
    assert.equal(renew.statusCode, 409, 'an abandoned run cannot be renewed')
  })
}

test('the lease timer abandons a run without any request (real timer, one-second lease)', async (t) => {
  const app = await jobsApp('sqlite', { start: '2025-06-02T08:30:00Z', env: { PLUGIN_GATEHOUSE_JOBS_LEASE_SECONDS: '1' } })
  t.after(() => app.close())
  const w = await app.worker()
  const wf = await app.define({ credentialId: w.id })
  app.clock.set('2025-06-02T09:00:30Z')
  const run = (await app.report(w.token, { workflowId: wf.id, status: 'started' })).json().data
  assert.equal(run.leaseExpiresAt, '2025-06-02T09:00:31.000Z')
  app.clock.advance(2000)
  const until = Date.now() + 4000
  let status = 'started'
  while (status !== 'abandoned' && Date.now() < until) {
    await sleep(50)
    status = (await app.database.db.selectFrom('workflow_runs').select('status').where('id', '=', run.id).executeTakeFirstOrThrow()).status as string
  }
  assert.equal(status, 'abandoned')
})
