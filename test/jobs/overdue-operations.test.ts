// A workflow due for longer than the grace period with no run started is overdue: /metrics
// counts it (JSON and the gatehouse_workflows_overdue gauge), /incidents opens an incident of
// category jobs, readiness warns naming it; starting a run clears all three.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { testDialects } from '../helpers/test-app.js'
import { dataOf } from '../admin/helpers/admin-client.js'
import { jobsApp, WORKFLOWS } from './helpers/jobs-app.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: overdue workflows show in /metrics, /incidents and readiness, and clear when a run starts`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T08:30:00Z', env: { PLUGIN_GATEHOUSE_JOBS_OVERDUE_GRACE_SECONDS: '600' } })
    t.after(() => app.close())
    const ops = await app.issueToken(['metrics:read', 'incidents:read', 'readiness:read'])
    const w = await app.worker()
    const wf = await app.define({ name: 'Hourly export', credentialId: w.id })
    await app.define({ name: 'Paused one', credentialId: w.id, status: 'paused' })
    const gauge = async () => {
      const text = (await app.get('/gatehouse/v1/metrics', ops, { accept: 'text/plain' })).body
      const family = parsePrometheusTextFormat(text).find((f) => f.name === 'gatehouse_workflows_overdue')
      assert.equal(family?.type, 'GAUGE')
      return Number(family?.metrics[0].value)
    }
    const state = async () => ({
      json: (await app.get('/gatehouse/v1/metrics', ops)).json().data.workflowsOverdue,
      gauge: await gauge(),
      incident: ((await app.get('/gatehouse/v1/incidents?status=open', ops)).json().data as { category: string; value: number; currentSeverity: string }[]).find((i) => i.category === 'jobs') ?? null,
      readiness: ((await app.get('/gatehouse/v1/readiness', ops)).json().data.checks as { name: string; status: string; details: { overdue: number; workflows?: { name: string }[] } }[]).find((c) => c.name === 'workflows'),
    })

    app.clock.set('2025-06-02T09:09:59Z')
    const inGrace = await state()
    assert.deepEqual({ json: inGrace.json, gauge: inGrace.gauge, incident: inGrace.incident, readiness: inGrace.readiness?.status }, { json: 0, gauge: 0, incident: null, readiness: 'ok' })

    app.clock.set('2025-06-02T09:10:00Z')
    const overdue = await state()
    assert.equal(overdue.json, 1)
    assert.equal(overdue.gauge, 1)
    assert.deepEqual({ value: overdue.incident?.value, severity: overdue.incident?.currentSeverity }, { value: 1, severity: 'warn' })
    assert.equal(overdue.readiness?.status, 'warn')
    assert.deepEqual(overdue.readiness?.details.workflows, [{ id: wf.id, name: 'Hourly export' }])
    assert.equal((await app.get('/gatehouse/v1/readiness', ops)).json().data.verdict, 'degraded')
    const listed = (await app.get(`${WORKFLOWS}?status=active`, w.token)).json().data[0]
    assert.deepEqual({ isDue: listed.isDue, overdue: listed.overdue }, { isDue: true, overdue: true })

    dataOf(await app.report(w.token, { workflowId: wf.id, status: 'started' }))
    const cleared = await state()
    assert.deepEqual({ json: cleared.json, gauge: cleared.gauge, incident: cleared.incident, readiness: cleared.readiness?.status }, { json: 0, gauge: 0, incident: null, readiness: 'ok' })
  })
}
