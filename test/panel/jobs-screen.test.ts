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
  // Each problem in words under its field (as Create credential does), the runtime's detail kept where it helps.
  assert.match(bad.body, /<p class="field-error" id="error-cron">Write five fields: minute, hour, day of month, month and day of week; 30 2 \* \* \* is 02:30 every day \(here: expected 5 fields \(minute hour day-of-month month day-of-week\), got 4\)\.<\/p>/)
  assert.match(bad.body, /<p class="field-error" id="error-timezone">Write an IANA time zone name such as Europe\/Berlin, America\/New_York or UTC \(&quot;Europe\/Berlim&quot; is not one\)\.<\/p>/)
  assert.match(bad.body, /name="cron" value="30 2 \* \*" placeholder="30 2 \* \* \*" aria-invalid="true" aria-describedby="error-cron"/)
  assert.match(bad.body, /<strong>2 fields need attention:<\/strong>\s*<a href="#field-cron">Cron expression<\/a>, <a href="#field-timezone">Time zone<\/a>\./)
  assert.doesNotMatch(bad.body, /Expected|schedule\.cron/, 'no validator text, no parameter paths')
  assert.match(bad.body, /name="cron" value="30 2 \* \*"/, 'the values typed are kept')
  const badIds = await s.submit('/gatehouse/cp/jobs', { name: 'Nightly', templateKey: 'scheduled-catalog-sync', credentialId: credential.id, cron: '0 * * * *', timezone: 'UTC', entryIds: '4, four', config: '{nope' })
  assert.equal(badIds.statusCode, 400)
  assert.match(badIds.body, /id="error-entryIds">Write entry ids as whole numbers separated by commas or spaces \(&quot;four&quot; is not one\)\./)
  assert.match(badIds.body, /id="error-config">Write the config as a JSON object, such as \{&quot;destination&quot;: &quot;warehouse&quot;\}, or leave it empty\./)
  // A field the form cannot read and the runtime's checks of the others come in one answer:
  // a bad config beside a bad cron, an unknown time zone and a credential without the worker's scopes.
  const reader = await app.services.credentials.create({ label: 'Reader', scopes: ['products:read'] })
  const together = await s.submit('/gatehouse/cp/jobs', { name: 'Nightly', templateKey: 'scheduled-catalog-sync', credentialId: reader.credential.id, cron: '99 * * * *', timezone: 'Mars/Base', config: '{nope' })
  assert.equal(together.statusCode, 400)
  assert.match(together.body, /<strong>4 fields need attention:<\/strong>/)
  for (const field of ['config', 'cron', 'timezone', 'credentialId']) assert.match(together.body, new RegExp(`id="error-${field}">`), field)
  assert.match(together.body, /id="error-credentialId">[^<]*jobs:read and jobs:report/)
  // The template is a choice of the known ones; anything else (a forged form) is refused beside it, as is a missing name or credential.
  assert.match(form.body, /<select name="templateKey"><option value="catalog-sync">[^<]+\(catalog-sync\)<\/option>/)
  assert.match(form.body, /<option value="scheduled-catalog-sync" selected>Scheduled catalog sync \(scheduled-catalog-sync\)<\/option>/)
  const badChoice = await s.submit('/gatehouse/cp/jobs', { name: '', templateKey: 'nightly-magic', credentialId: '', cron: '0 * * * *', timezone: 'UTC' })
  assert.equal(badChoice.statusCode, 400)
  assert.match(badChoice.body, /id="error-templateKey">Choose one of the templates: catalog-sync, [a-z, -]*scheduled-catalog-sync[a-z, -]*\.<\/p>/)
  assert.match(badChoice.body, /id="error-name">Give the workflow a name of up to 200 characters, so people can tell what it does\.<\/p>/)
  assert.match(badChoice.body, /id="error-credentialId">Choose the credential the workflow runs as\.<\/p>/)
  assert.doesNotMatch(badChoice.body, /Expected/)
  assert.deepEqual(await app.database.db.selectFrom('workflows').select('id').execute(), [], 'refused forms create nothing')

  const created = await s.submit('/gatehouse/cp/jobs', { name: 'Hourly export', templateKey: 'scheduled-catalog-sync', credentialId: credential.id, cron: '0 * * * *', timezone: 'UTC', sections: 'news', entryIds: '', productIds: '3', config: '{"destination":"warehouse"}' })
  assert.equal(created.statusCode, 303, created.body)
  const id = String(created.headers.location).split('/').pop() as string
  const detail = await s.page(`/gatehouse/cp/jobs/${id}`)
  assert.match(detail.body, /Created workflow Hourly export; next due 2025-06-02T09:00:00.000Z/)
  assert.match(detail.body, /sections news; products 3/)
  assert.match(detail.body, new RegExp(`<dt>Runs as</dt><dd><a href="/gatehouse/cp/accounts/${credential.id}">Sync &lt;worker&gt;</a> <code>${credential.id}</code></dd>`))
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
  // The credential is named by its label (linked to it), not by its id.
  assert.match(row, new RegExp(`runs as <a href="/gatehouse/cp/accounts/${credential.id}">Sync &lt;worker&gt;</a>`))
  assert.ok(!row.includes(`<code>${credential.id}</code>`), 'the id is not what the list shows')
  const history = await s.page(`/gatehouse/cp/jobs/${id}`)
  assert.match(history.body, /<td data-label="Worker"><div>w1<\/div><\/td>/)
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

  // Delete asks once more (it takes the run history), as deleting a credential does.
  assert.match((await s.page(`/gatehouse/cp/jobs/${id}`)).body, new RegExp(`href="/gatehouse/cp/jobs/${id}/confirm/delete">Delete…</a>`))
  const confirm = await s.page(`/gatehouse/cp/jobs/${id}/confirm/delete`)
  assert.match(confirm.body, new RegExp(`action="/gatehouse/cp/jobs/${id}/delete"`))
  assert.match(confirm.body, /run history are deleted/)
  const deleted = await s.submit(`/gatehouse/cp/jobs/${id}/delete`)
  assert.equal(deleted.statusCode, 303)
  assert.match((await s.page('/gatehouse/cp/jobs')).body, /Deleted workflow Hourly export\./)
  assert.equal((await s.page(`/gatehouse/cp/jobs/${id}`)).statusCode, 404)

  const audit = await app.database.db.selectFrom('control_audit').select(['action', 'actor_type', 'actor_id']).where('category', '=', 'job').where('action', 'like', 'workflow.%').orderBy('id').execute()
  assert.deepEqual(audit.map((a) => a.action), ['workflow.create', 'workflow.pause', 'workflow.resume', 'workflow.delete'])
  for (const a of audit) assert.deepEqual([a.actor_type, a.actor_id], ['admin', ADMIN_USER])
})
