// GET /workflows and /workflows/show: only the caller's workflows, with nextDueAt, isDue and
// latestRun; dueOnly takes the boolean spellings lowStock takes; status and templateKey
// filter; limit and a signed cursor page; another credential's workflow is a 404.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { BOOLEAN_SPELLINGS } from '../../src/kernel/booleans.js'
import { jobsApp, WORKFLOWS } from './helpers/jobs-app.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: a worker lists and shows only its own workflows, filtered and paged`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T08:30:00Z' })
    t.after(() => app.close())
    const w = await app.worker()
    const other = await app.worker()
    const hourly = await app.define({ name: 'Hourly', credentialId: w.id })
    app.clock.advance(1000)
    const daily = await app.define({ name: 'Daily', credentialId: w.id, templateKey: 'report', schedule: { cron: '0 6 * * *', timezone: 'UTC' } })
    app.clock.advance(1000)
    const paused = await app.define({ name: 'Paused', credentialId: w.id, status: 'paused' })
    const foreign = await app.define({ name: 'Foreign', credentialId: other.id })
    app.clock.set('2025-06-02T09:10:00Z')

    const all = (await app.get(WORKFLOWS, w.token)).json()
    assert.deepEqual(all.data.map((x: { name: string }) => x.name), ['Hourly', 'Daily', 'Paused'], 'creation order, the caller\'s only')
    assert.deepEqual(all.pagination, { hasMore: false, nextCursor: null })
    const first = all.data[0]
    assert.deepEqual({ isDue: first.isDue, nextDueAt: first.nextDueAt, latestRun: first.latestRun, overdue: first.overdue }, { isDue: true, nextDueAt: '2025-06-02T09:00:00.000Z', latestRun: null, overdue: false })
    assert.deepEqual(first.schedule, { cron: '0 * * * *', timezone: 'UTC' })

    for (const spelling of ['true', '1', 'yes', 'on', 'TRUE'.toLowerCase()]) {
      const due = (await app.get(`${WORKFLOWS}?dueOnly=${spelling}`, w.token)).json().data
      assert.deepEqual(due.map((x: { id: string }) => x.id), [hourly.id], `dueOnly=${spelling}`)
    }
    for (const spelling of ['false', '0', 'no', 'off']) {
      assert.equal((await app.get(`${WORKFLOWS}?dueOnly=${spelling}`, w.token)).json().data.length, 3, `dueOnly=${spelling}`)
    }
    const badBool = await app.get(`${WORKFLOWS}?dueOnly=maybe`, w.token)
    assert.equal(badBool.statusCode, 400)
    assert.deepEqual(badBool.json().error.details, [{ param: 'dueOnly', problem: `must be one of: ${BOOLEAN_SPELLINGS.join(', ')}` }])
    const badStatus = await app.get(`${WORKFLOWS}?status=running`, w.token)
    assert.deepEqual(badStatus.json().error.details, [{ param: 'status', problem: 'must be one of: active, paused' }])

    assert.deepEqual((await app.get(`${WORKFLOWS}?status=paused`, w.token)).json().data.map((x: { id: string }) => x.id), [paused.id])
    assert.deepEqual((await app.get(`${WORKFLOWS}?templateKey=report`, w.token)).json().data.map((x: { id: string }) => x.id), [daily.id])

    const page1 = (await app.get(`${WORKFLOWS}?limit=2`, w.token)).json()
    assert.deepEqual(page1.data.map((x: { id: string }) => x.id), [hourly.id, daily.id])
    assert.equal(page1.pagination.hasMore, true)
    const page2 = (await app.get(`${WORKFLOWS}?limit=2&cursor=${page1.pagination.nextCursor}`, w.token)).json()
    assert.deepEqual(page2.data.map((x: { id: string }) => x.id), [paused.id])
    assert.deepEqual(page2.pagination, { hasMore: false, nextCursor: null })
    const otherQuery = await app.get(`${WORKFLOWS}?limit=2&status=active&cursor=${page1.pagination.nextCursor}`, w.token)
    assert.equal(otherQuery.statusCode, 400, 'a cursor belongs to its query')
    assert.equal(otherQuery.json().error.details[0].param, 'cursor')
    const forged = await app.get(`${WORKFLOWS}?cursor=${page1.pagination.nextCursor.slice(0, -2)}xx`, w.token)
    assert.equal(forged.statusCode, 400)

    const shown = await app.get(`${WORKFLOWS}/show?id=${daily.id}`, w.token)
    assert.equal(shown.json().data.nextDueAt, '2025-06-03T06:00:00.000Z')
    const hidden = await app.get(`${WORKFLOWS}/show?id=${foreign.id}`, w.token)
    assert.equal(hidden.statusCode, 404, 'another credential\'s workflow does not exist for this caller')
    assert.equal(hidden.json().error.code, 'NOT_FOUND')
    assert.equal((await app.get(`${WORKFLOWS}/show?id=wf_nope`, w.token)).statusCode, 404)
    assert.equal((await app.get(`${WORKFLOWS}/show`, w.token)).json().error.details[0].param, 'id')
    assert.equal((await app.report(w.token, { workflowId: foreign.id, status: 'started' })).statusCode, 404, 'nor can it be reported on')
  })

  test(`${dialect}: scopes: jobs:read lists, jobs:report reports; bodies are checked field by field`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T09:30:00Z' })
    t.after(() => app.close())
    const reader = await app.worker(['jobs:read'])
    const reporter = await app.worker(['jobs:report'])
    // A workflow runs as a credential holding both scopes (one with only one is refused).
    const wf = await app.define({ credentialId: (await app.worker()).id })
    assert.equal((await app.get(WORKFLOWS, reader.token)).statusCode, 200)
    const noRead = await app.get(WORKFLOWS, reporter.token)
    assert.equal(noRead.statusCode, 403)
    assert.equal(noRead.json().error.message, 'Missing required scope: jobs:read')
    const noReport = await app.report(reader.token, { workflowId: wf.id, status: 'started' })
    assert.equal(noReport.statusCode, 403)
    assert.equal(noReport.json().error.message, 'Missing required scope: jobs:report')

    const bad = await app.report(reporter.token, { status: 'done', outcomeRefs: [{ type: 'product' }], extra: 1 })
    assert.equal(bad.statusCode, 400)
    const details = bad.json().error.details as { param: string; problem: string }[]
    assert.deepEqual(details.map((d) => d.param).sort(), ['extra', 'outcomeRefs.0.id', 'status', 'workflowId'])
    assert.equal(details.find((d) => d.param === 'status')?.problem, 'must be one of: started, succeeded, failed, blocked, approval_requested')
    assert.equal((await app.report(reporter.token, { workflowId: 'wf_missing', status: 'started' })).statusCode, 404)
  })
}
