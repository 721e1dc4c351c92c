// Workflow definitions on the admin API: create, show, list, update, pause, resume, runs and
// delete. A bad cron expression or zone is a 400 naming it; every mistyped field is named
// (no coercion); the credential must exist; a boundary names something.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { dataOf } from '../admin/helpers/admin-client.js'
import { jobsApp } from './helpers/jobs-app.js'

const details = (res: { json(): { error: { details: { param: string; problem: string }[] } } }) =>
  Object.fromEntries(res.json().error.details.map((d) => [d.param, d.problem]))

for (const dialect of await testDialects()) {
  test(`${dialect}: operators define, change, pause, resume and delete workflows`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T08:10:00Z' })
    t.after(() => app.close())
    const w = await app.worker()
    const created = await app.admin.post('/workflows', {
      name: 'Catalog sync', templateKey: 'scheduled-catalog-sync', credentialId: w.id, schedule: { cron: '*/15 * * * *', timezone: 'Europe/Berlin' },
      boundary: { sections: ['news', 'news'], productIds: [3] }, config: { destination: 'warehouse' },
    })
    assert.equal(created.statusCode, 201, created.body)
    const wf = created.json().data
    assert.match(wf.id, /^wf_/)
    assert.deepEqual(
      { status: wf.status, boundary: wf.boundary, config: wf.config, nextDueAt: wf.nextDueAt, isDue: wf.isDue, latestRun: wf.latestRun, createdAt: wf.createdAt },
      { status: 'active', boundary: { sections: ['news'], entryIds: [], productIds: [3] }, config: { destination: 'warehouse' }, nextDueAt: '2025-06-02T08:15:00.000Z', isDue: false, latestRun: null, createdAt: '2025-06-02T08:10:00.000Z' },
    )
    assert.deepEqual(dataOf(await app.admin.get(`/workflows/${wf.id}`)).name, 'Catalog sync')

    app.clock.set('2025-06-02T08:20:00Z')
    const changed = dataOf(await app.admin.patch(`/workflows/${wf.id}`, { schedule: { cron: '0 12 * * *', timezone: 'UTC' }, boundary: null, name: 'Noon sync' }))
    assert.deepEqual({ name: changed.name, boundary: changed.boundary, nextDueAt: changed.nextDueAt, updatedAt: changed.updatedAt }, { name: 'Noon sync', boundary: null, nextDueAt: '2025-06-02T12:00:00.000Z', updatedAt: '2025-06-02T08:20:00.000Z' })
    assert.equal(dataOf(await app.admin.post(`/workflows/${wf.id}/pause`)).status, 'paused')
    assert.equal(dataOf(await app.admin.post(`/workflows/${wf.id}/resume`)).status, 'active')

    app.clock.set('2025-06-02T12:05:00Z')
    for (const status of ['started', 'succeeded']) assert.equal((await app.report(w.token, { workflowId: wf.id, status })).statusCode, 200)
    app.clock.set('2025-06-03T12:05:00Z')
    assert.equal((await app.report(w.token, { workflowId: wf.id, status: 'started' })).statusCode, 200)
    const runs = await app.admin.get(`/workflows/${wf.id}/runs?limit=1`)
    const first = runs.json()
    assert.deepEqual(first.data.map((r: { occurrence: string; status: string }) => [r.occurrence, r.status]), [['2025-06-03T12:00:00.000Z', 'started']])
    assert.equal(first.pagination.hasMore, true)
    const second = dataOf(await app.admin.get(`/workflows/${wf.id}/runs?limit=1&cursor=${first.pagination.nextCursor}`))
    assert.deepEqual(second.map((r: { status: string }) => r.status), ['succeeded'])

    const other = await app.define({ name: 'Other', credentialId: (await app.worker()).id })
    const listed = app.admin.get(`/workflows?credentialId=${w.id}`)
    assert.deepEqual(dataOf(await listed).map((x: { id: string }) => x.id), [wf.id])
    assert.equal(dataOf(await app.admin.get('/workflows')).length, 2)

    const deleted = await app.admin.del(`/workflows/${wf.id}`)
    assert.equal(deleted.statusCode, 204)
    assert.equal((await app.admin.get(`/workflows/${wf.id}`)).statusCode, 404)
    assert.equal((await app.admin.get(`/workflows/${wf.id}/runs`)).statusCode, 404)
    const left = await app.database.db.selectFrom('workflow_runs').select('id').where('workflow_id', '=', wf.id).execute()
    assert.equal(left.length, 0, 'its runs go with it')
    assert.equal(dataOf(await app.admin.get('/workflows')).map((x: { id: string }) => x.id).join(), other.id)

    const audit = (await app.jobAudit()).filter((a) => a.entity_id === wf.id)
    assert.deepEqual(audit.map((a) => a.action), ['workflow.create', 'workflow.update', 'workflow.pause', 'workflow.resume', 'workflow.delete'])
    for (const a of audit) assert.deepEqual([a.actor_type, a.actor_id], ['admin', 'admin-token'])
    const metadata = JSON.parse(audit[0].metadata)
    assert.deepEqual(metadata.configKeys, ['destination'])
    assert.ok(!audit[0].metadata.includes('warehouse'), 'config values stay out of the audit log')
    assert.deepEqual(JSON.parse(audit[1].metadata).changed, ['schedule', 'boundary', 'name'])
  })

  test(`${dialect}: a bad cron expression or zone is a 400 naming it; so is every other bad field`, async (t) => {
    const app = await jobsApp(dialect)
    t.after(() => app.close())
    const w = await app.worker()
    const base = { name: 'x', templateKey: 'scheduled-catalog-sync', credentialId: w.id }
    const both = await app.admin.post('/workflows', { ...base, schedule: { cron: '61 * * * *', timezone: 'Mars/Olympus_Mons' } })
    assert.equal(both.statusCode, 400)
    assert.deepEqual(details(both), { 'schedule.cron': 'minute 61 (in "61") is outside 0–59', 'schedule.timezone': 'unknown IANA time zone "Mars/Olympus_Mons"' })
    const cases: [unknown, Record<string, string>][] = [
      // Each number is named as written (croner's own message gave its zero-based value).
      [{ cron: '0 0 0 * *', timezone: 'UTC' }, { 'schedule.cron': 'day of month 0 (in "0") is outside 1–31' }],
      [{ cron: '0 0 * 13 *', timezone: 'UTC' }, { 'schedule.cron': 'month 13 (in "13") is outside 1–12' }],
      [{ cron: '0-70 * * * *', timezone: 'UTC' }, { 'schedule.cron': 'minute 70 (in "0-70") is outside 0–59' }],
      [{ cron: '*/90 * * * 8', timezone: 'UTC' }, { 'schedule.cron': 'day of week 8 (in "8") is outside 0–7' }],
      [{ cron: '0 * * * * *', timezone: 'UTC' }, { 'schedule.cron': 'expected 5 fields (minute hour day-of-month month day-of-week), got 6' }],
      [{ cron: '0 0 31 2 *', timezone: 'UTC' }, { 'schedule.cron': 'the expression never fires' }],
      [{ cron: '0 9 * * *', timezone: '+02:00' }, { 'schedule.timezone': 'not an IANA time zone name (for example Europe/Berlin or UTC)' }],
    ]
    for (const [schedule, expected] of cases) assert.deepEqual(details(await app.admin.post('/workflows', { ...base, schedule })), expected, JSON.stringify(schedule))

    const typed = await app.admin.post('/workflows', { name: 5, templateKey: 'Bad Key', credentialId: w.id, schedule: { cron: 7, timezone: 'UTC' }, config: 'x', status: 'running', boundary: { productIds: ['3'] }, color: 'red' })
    assert.equal(typed.statusCode, 400)
    assert.deepEqual(Object.keys(details(typed)).sort(), ['boundary.productIds.0', 'color', 'config', 'name', 'schedule.cron', 'status', 'templateKey'])
    assert.equal(details(typed).status, 'must be one of: active, paused')
    // Badly typed members do not hide the rules' problems with the others: an unknown time
    // zone, a credential without the worker's scopes and an empty boundary are named too.
    const reader = await app.worker(['products:read'])
    const mixed = await app.admin.post('/workflows', { name: 7, templateKey: 'BAD KEY', credentialId: reader.id, schedule: { cron: '61 * * * *', timezone: 'Mars/Base' }, boundary: {} })
    assert.equal(mixed.statusCode, 400)
    assert.deepEqual(Object.keys(details(mixed)).sort(), ['boundary', 'credentialId', 'name', 'schedule.cron', 'schedule.timezone', 'templateKey'])
    assert.match(details(mixed).credentialId, /lacks jobs:/)

    const missing = await app.admin.post('/workflows', { ...base, credentialId: 'cred_nobody', schedule: { cron: '0 * * * *', timezone: 'UTC' }, boundary: { sections: [] } })
    assert.deepEqual(details(missing), {
      credentialId: 'no credential with id cred_nobody',
      boundary: 'name at least one section, entry id or product id, or leave the boundary out (null)',
    })
    assert.equal((await app.admin.patch('/workflows/wf_nope', { name: 'y' })).statusCode, 404)
    const wf = await app.define({ credentialId: w.id })
    assert.deepEqual(details(await app.admin.patch(`/workflows/${wf.id}`, {})), { '(body)': 'at least one property is required' })
    assert.deepEqual(details(await app.admin.patch(`/workflows/${wf.id}`, { schedule: { cron: '* * *', timezone: 'UTC' } })), { 'schedule.cron': 'expected 5 fields (minute hour day-of-month month day-of-week), got 3' })
    assert.equal((await app.admin.get('/workflows?status=running')).json().error.details[0].problem, 'must be one of: active, paused')
    assert.equal((await app.admin.get('/workflows', { authorization: 'Bearer wrong' })).statusCode, 401)
    assert.equal(await app.database.db.selectFrom('workflows').select('id').execute().then((r) => r.length), 1, 'nothing was written by the refused requests')
  })
}
