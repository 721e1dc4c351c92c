// Schedules are read in the workflow's IANA zone. A daily 02:30 job in Europe/Berlin runs
// exactly once on each day around both DST changes: on the spring-forward day 02:30 does not
// exist (it runs at 03:00, the first instant after the gap), on the fall-back day 02:30
// happens twice (it runs at the first). A worker polls every 15 minutes of a moved clock.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { dataOf } from '../admin/helpers/admin-client.js'
import { jobsApp, WORKFLOWS, type JobsApp } from './helpers/jobs-app.js'

const berlin = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' })
const local = (iso: string) => berlin.format(new Date(iso))

/** Polls like a worker from `from` to `to`; answers the occurrences it ran, in Berlin time. */
async function runWindow(app: JobsApp, token: string, workflowId: string, from: string, to: string): Promise<string[]> {
  const ran: string[] = []
  for (let t = Date.parse(from); t < Date.parse(to); t += 15 * 60_000) {
    app.clock.set(t)
    const due = (await app.get(`${WORKFLOWS}?dueOnly=yes`, token)).json().data as { id: string }[]
    if (!due.some((w) => w.id === workflowId)) continue
    const run = dataOf(await app.report(token, { workflowId, status: 'started', workerId: 'dst' }))
    dataOf(await app.report(token, { workflowId, status: 'succeeded', runId: run.id, workerId: 'dst' }))
    ran.push(local(run.occurrence))
  }
  return ran
}

for (const dialect of await testDialects()) {
  test(`${dialect}: a daily 02:30 Europe/Berlin workflow runs exactly once each day across spring-forward and fall-back`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-03-28T12:00:00Z' })
    t.after(() => app.close())
    const w = await app.worker()
    const schedule = { cron: '30 2 * * *', timezone: 'Europe/Berlin' }

    const spring = await app.define({ name: 'Spring', credentialId: w.id, schedule })
    assert.equal(spring.nextDueAt, '2025-03-29T01:30:00.000Z', '02:30 CET')
    assert.deepEqual(await runWindow(app, w.token, spring.id, '2025-03-28T23:00:00Z', '2025-04-01T22:00:00Z'), [
      '2025-03-29, 02:30 GMT+1',
      '2025-03-30, 03:00 GMT+2', // 02:30 does not exist that night
      '2025-03-31, 02:30 GMT+2',
      '2025-04-01, 02:30 GMT+2',
    ])

    app.clock.set('2025-10-24T12:00:00Z')
    const autumn = await app.define({ name: 'Autumn', credentialId: w.id, schedule })
    assert.deepEqual(await runWindow(app, w.token, autumn.id, '2025-10-24T22:00:00Z', '2025-10-28T23:00:00Z'), [
      '2025-10-25, 02:30 GMT+2',
      '2025-10-26, 02:30 GMT+2', // 02:30 happens twice that night; the second is not another run
      '2025-10-27, 02:30 GMT+1',
      '2025-10-28, 02:30 GMT+1',
    ])
    const runs = await app.database.db.selectFrom('workflow_runs').select('status').where('workflow_id', 'in', [spring.id, autumn.id]).execute()
    assert.equal(runs.length, 8)
  })

  test(`${dialect}: next due times are computed in the workflow's zone`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T08:10:00Z' })
    t.after(() => app.close())
    const w = await app.worker()
    const at = async (timezone: string) => (await app.define({ credentialId: w.id, schedule: { cron: '0 9 * * 1-5', timezone } })).nextDueAt
    assert.equal(await at('UTC'), '2025-06-02T09:00:00.000Z')
    assert.equal(await at('America/New_York'), '2025-06-02T13:00:00.000Z')
    assert.equal(await at('Asia/Tokyo'), '2025-06-03T00:00:00.000Z', '09:00 Monday in Tokyo has passed; Tuesday next')
    assert.equal(await at('Australia/Lord_Howe'), '2025-06-02T22:30:00.000Z', 'a half-hour offset')
  })
}
