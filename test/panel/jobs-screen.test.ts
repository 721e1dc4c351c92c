// The Jobs screen over HTTP: the list with schedule, next due time, latest run and status
// (overdue flagged), the create form (CSRF, each problem beside its field, values kept), a
// workflow's run history, pause, resume and delete, audited as the signed-in admin.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ADMIN_USER, panelApp, post, signedIn } from './helpers/panel-client.js'

test('the Jobs screen lists, creates, pauses, resumes and deletes workflows and shows their runs', async (t) => {
  const app = await panelApp()
  t.after(() => app.close())
  let now = Date.parse('2025-06-02T08:10:00Z')
  app.services.jobs.useClock(() => now)
  const s = await signedIn(app)
  const { credential, token } = await app.services.credentials.create({ label: 'Sync <worker>', scopes: ['jobs:read', 'jobs:report'] })

  const status = await s.page('/gatehouse/cp/status')
  assert.match(status.body, /<a href="\/gatehouse\/cp\/jobs">Jobs<\/a>/, 'the navigation links the Jobs screen')
  const empty = await s.page('/gatehouse/cp/jobs')
  assert.equal(empty.statusCode, 200)
  assert.match(empty.body, /No workflows yet/)
  const form = await s.page('/gatehouse/cp/jobs/new')
  assert.match(form.body, new RegExp(`<option value="${credential.id}">Sync &lt;worker&gt; \\(${credential.id}\\)</option>`))

  const forged = await post(app, '/gatehouse/cp/jobs', { _csrf: 'not-the-token', name: 'x' }, s.cookie)
  assert.equal(forged.statusCode, 403)
  assert.match(forged.body, /Form expired/)

  const bad = await s.submit('/gatehouse/cp/jobs', { name: 'Nightly', templateKey: 'scheduled-catalog-sync', credentialId: credential.id, cron: '30 2 * *', timezone: 'Europe/Berlim', sections: '', entryIds: '', productIds: '', config: '' })
  assert.equal(bad.statusCode, 400)
  assert.match(bad.body, /<span class="fail field-error" data-field="cron">expected 5 fields \(minute hour day-of-month month day-of-week\), got 4<\/span>/)
  assert.match(bad.body, /<span class="fail field-error" data-field="timezone">unknown IANA time zone &quot;Europe\/Berlim&quot;<\/span>/)
  assert.match(bad.body, /name="cron" value="30 2 \* \*"/, 'the values typed are kept')
  const badIds = await s.submit('/gatehouse/cp/jobs', { name: 'Nightly', templateKey: 'scheduled-catalog-sync', credentialId: credential.id, cron: '0 * * * *', timezone: 'UTC', entryIds: '4, four', config: '{nope' })
  assert.equal(badIds.statusCode, 400)
  assert.match(badIds.body, /data-field="entryIds">&quot;four&quot; is not a positive integer id/)
  assert.match(badIds.body, /data-field="config">not valid JSON/)
  assert.deepEqual(await app.database.db.selectFrom('workflows').select('id').execute(), [], 'refused forms create nothing')

  const created = await s.submit('/gatehouse/cp/jobs', { name: 'Hourly export', templateKey: 'scheduled-catalog-sync', credentialId: credential.id, cron: '0 * * * *', timezone: 'UTC', sections: 'news', entryIds: '', productIds: '3', config: '{"destination":"warehouse"}' })
  assert.equal(created.statusCode, 303, created.body)
  const id = String(created.headers.location).split('/').pop() as string
  const detail = await s.page(`/gatehouse/cp/jobs/${id}`)
  assert.match(detail.body, /Created workflow Hourly export; next due 2025-06-02T09:00:00.000Z/)
  assert.match(detail.body, /sections news; products 3/)
  assert.match(detail.body, /No runs yet/)

  now = Date.parse('2025-06-02T09:05:00Z')
  const run = await app.post('/gatehouse/v1/workflows/run-report', { workflowId: id, status: 'started', workerId: 'w1', summary: 'copied 2 products' }, token)
  assert.equal(run.statusCode, 200, run.body)
  const listed = await s.page('/gatehouse/cp/jobs')
  const row = new RegExp(`<tr data-workflow="${id}">.*?</tr>`, 's').exec(listed.body)?.[0] ?? ''
  assert.match(row, /<code>0 \* \* \* \*<\/code><br><span class="muted">UTC<\/span>/)
  assert.match(row, /2025-06-02 10:00:00Z/, 'next due')
  assert.match(row, /badge queued">started<\/span> <span class="muted">2025-06-02 09:00:00Z/, 'latest run')
  assert.match(row, /badge active">active<\/span>/)
  const history = await s.page(`/gatehouse/cp/jobs/${id}`)
  assert.match(history.body, /<td>w1<\/td>/)
  assert.match(history.body, /copied 2 products/)

  // The run ends; the next occurrence passes its grace period without a run: overdue.
  await app.post('/gatehouse/v1/workflows/run-report', { workflowId: id, status: 'succeeded', workerId: 'w1' }, token)
  now = Date.parse('2025-06-02T10:20:00Z')
  const overdue = await s.page('/gatehouse/cp/jobs')
  assert.match(overdue.body, /<div class="flash error" role="alert" id="overdue">1 workflow is overdue .*: Hourly export<\/div>/)
  assert.match(overdue.body, /badge fail">overdue<\/span>/)

  const paused = await s.submit(`/gatehouse/cp/jobs/${id}/pause`)
  assert.equal(paused.statusCode, 303)
  assert.match((await s.page(`/gatehouse/cp/jobs/${id}`)).body, /Hourly export: now paused\./)
  assert.doesNotMatch((await s.page('/gatehouse/cp/jobs')).body, /id="overdue"/, 'a paused workflow is not overdue')
  await s.submit(`/gatehouse/cp/jobs/${id}/resume`)
  assert.match((await s.page(`/gatehouse/cp/jobs/${id}`)).body, /now active; next due 2025-06-02T11:00:00.000Z/)

  const deleted = await s.submit(`/gatehouse/cp/jobs/${id}/delete`)
  assert.equal(deleted.statusCode, 303)
  assert.match((await s.page('/gatehouse/cp/jobs')).body, /Deleted workflow Hourly export\./)
  assert.equal((await s.page(`/gatehouse/cp/jobs/${id}`)).statusCode, 404)

  const audit = await app.database.db.selectFrom('control_audit').select(['action', 'actor_type', 'actor_id']).where('category', '=', 'job').where('action', 'like', 'workflow.%').orderBy('id').execute()
  assert.deepEqual(audit.map((a) => a.action), ['workflow.create', 'workflow.pause', 'workflow.resume', 'workflow.delete'])
  for (const a of audit) assert.deepEqual([a.actor_type, a.actor_id], ['admin', ADMIN_USER])
})
