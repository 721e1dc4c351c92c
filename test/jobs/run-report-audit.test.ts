// Run reports land in the audit log (category job) in the report's own transaction, refused
// ones too, also while the control plane's routes are off; approvalIds must name approvals
// the reporting credential requested (400 naming the id otherwise).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { verifyAudit } from '../../src/control/audit-log.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { jobsApp } from './helpers/jobs-app.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: every run report is audited (control plane off); approvalIds must be the reporter's own`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T08:30:00Z' })
    t.after(() => app.close())
    assert.equal(app.services.settings.writesExperimental, false)
    const w = await app.worker()
    const stranger = await app.worker()
    const wf = await app.define({ credentialId: w.id })
    const approval = async (id: string, requesterId: string) => app.database.db.transaction().execute((tx) => app.services.control.approvals.insert(tx, {
      id, actionType: 'variant.setPrice', payload: { variantId: 1, price: 9 }, payloadDigest: 'd', reviewedState: null, riskLevel: 'low', requiredApprovals: 1,
      policyHandle: 'builtin', requester: { type: 'credential', id: requesterId }, metadata: { source: 's', agentId: 'a', traceId: 't' }, reason: null, target: null,
      createdAt: 0, expiresAt: Date.now() + 3_600_000,
    }))
    await approval('apr_own', w.id)
    await approval('apr_theirs', stranger.id)

    app.clock.set('2025-06-02T09:01:00Z')
    const run = (await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'w1', summary: 'begin' })).json().data
    assert.equal((await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'w2' })).statusCode, 409)
    assert.equal((await app.report(w.token, { workflowId: wf.id, status: 'started', runId: run.id, workerId: 'w1' })).statusCode, 200)

    const wrong = await app.report(w.token, { workflowId: wf.id, status: 'approval_requested', workerId: 'w1', approvalIds: ['apr_own', 'apr_theirs', 'apr_unknown'] })
    assert.equal(wrong.statusCode, 400)
    assert.deepEqual(wrong.json().error.details, [
      { param: 'approvalIds.1', problem: 'apr_theirs is not an approval requested by this credential' },
      { param: 'approvalIds.2', problem: 'apr_unknown is not an approval requested by this credential' },
    ])
    const waiting = await app.report(w.token, { workflowId: wf.id, status: 'approval_requested', workerId: 'w1', approvalIds: ['apr_own'] })
    assert.deepEqual(waiting.json().data.approvalIds, ['apr_own'])
    const done = await app.report(w.token, { workflowId: wf.id, status: 'succeeded', workerId: 'w1', approvalIds: ['apr_own'], outcomeRefs: [{ type: 'execution', id: 'exe_1' }] })
    assert.equal(done.statusCode, 200)

    const audit = await app.jobAudit()
    const reports = audit.filter((a) => a.action.startsWith('run.'))
    assert.deepEqual(reports.map((a) => [a.action, a.outcome]), [
      ['run.started', 'success'], ['run.started', 'denied'], ['run.renewed', 'success'], ['run.approval_requested', 'success'], ['run.succeeded', 'success'],
    ], 'the 400 wrote nothing')
    for (const a of reports) assert.deepEqual([a.actor_type, a.actor_id], ['credential', w.id])
    assert.equal(reports[0].entity_id, run.id)
    assert.match(reports[1].summary, /Refused started report on workflow Nightly sync: .*held by run/)
    const meta = JSON.parse(reports[4].metadata)
    assert.deepEqual({ status: meta.status, workflowId: meta.workflowId, occurrence: meta.occurrence, approvalIds: meta.approvalIds, outcomeRefs: meta.outcomeRefs },
      { status: 'succeeded', workflowId: wf.id, occurrence: '2025-06-02T09:00:00.000Z', approvalIds: ['apr_own'], outcomeRefs: [{ type: 'execution', id: 'exe_1' }] })
    assert.equal((await verifyAudit(app.database.db)).ok, true)
    assert.ok(!JSON.stringify(audit).includes(w.token), 'no token in the audit log')
  })
}

test('with the control plane on, job records are listed under category=job', async (t) => {
  const app = await jobsApp('sqlite', { start: '2025-06-02T08:30:00Z', env: { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' } })
  t.after(() => app.close())
  await seedSmallCatalog(app.services.store)
  const w = await app.worker()
  const wf = await app.define({ credentialId: w.id })
  app.clock.set('2025-06-02T09:01:00Z')
  assert.equal((await app.report(w.token, { workflowId: wf.id, status: 'started' })).statusCode, 200)
  const res = await app.get('/gatehouse/v1/control/audit?category=job', await app.issueToken(['control:audit:read']))
  assert.equal(res.statusCode, 200, res.body)
  assert.deepEqual(res.json().data.map((r: { action: string }) => r.action), ['workflow.create', 'run.started'])
  // Both came over HTTP (the admin API, the machine API): each record names its request.
  assert.ok(res.json().data.every((r: { requestId: string | null }) => r.requestId?.startsWith('req_')), res.body)
})
