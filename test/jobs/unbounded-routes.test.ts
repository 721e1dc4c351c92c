// Provider routes (/plugins/…) and the webhook dead-letter queue hold items the read boundary
// cannot place in a section, entry or product. While a bounded run is open they are refused
// as a whole with a 403 naming the workflow: lists, details, a cursor minted before the run,
// and DLQ replay. Other credentials, and the same credential once the run ends, are served.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testDialects } from '../helpers/test-app.js'
import { dataOf } from '../admin/helpers/admin-client.js'
import { jobsApp } from './helpers/jobs-app.js'

const V1 = '/gatehouse/v1'
const REDIRECTS = `${V1}/plugins/redirects/redirects`
const SCOPES = ['jobs:read', 'jobs:report', 'plugins:redirects:redirects:read', 'webhooks:dlq:read', 'webhooks:dlq:replay']

for (const dialect of await testDialects()) {
  test(`${dialect}: during a bounded run, provider routes and the DLQ answer 403 naming the workflow, also for a cursor minted before`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-unbounded-'))
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    const file = join(dir, 'redirects.csv')
    writeFileSync(file, 'id,from,to\nr1,/a,/b\nr2,/c,/d\nr3,/e,/f\n')
    const app = await jobsApp(dialect, { start: '2025-06-02T08:30:00Z', env: { PLUGIN_GATEHOUSE_PROVIDERS: 'redirects', PLUGIN_GATEHOUSE_REDIRECTS_FILE: file } })
    t.after(() => app.close())
    const w = await app.worker(SCOPES)
    const bystander = await app.issueToken(SCOPES)
    const wf = await app.define({ name: 'Shirts only', credentialId: w.id, boundary: { productIds: [1] } })

    // Before the run: served, and a cursor is minted.
    const first = await app.get(`${REDIRECTS}?limit=1`, w.token)
    assert.equal(first.statusCode, 200)
    const cursor = first.json().pagination.nextCursor as string
    assert.equal(typeof cursor, 'string')
    assert.equal((await app.get(`${V1}/webhooks/dlq`, w.token)).statusCode, 200)

    app.clock.set('2025-06-02T09:01:00Z')
    const run = dataOf(await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'sync' }))
    const refusals = {
      list: await app.get(REDIRECTS, w.token),
      cursor: await app.get(`${REDIRECTS}?cursor=${encodeURIComponent(cursor)}`, w.token),
      show: await app.get(`${REDIRECTS}/r2`, w.token),
      dlq: await app.get(`${V1}/webhooks/dlq`, w.token),
      replay: await app.post(`${V1}/webhooks/dlq/replay`, { mode: 'all' }, w.token),
    }
    for (const [name, res] of Object.entries(refusals)) {
      assert.equal(res.statusCode, 403, `${name}: ${res.body}`)
      assert.equal(res.json().error.code, 'FORBIDDEN')
      assert.match(res.json().error.message, new RegExp(`^/(plugins/redirects/redirects|webhooks/dlq(/replay)?) is not served inside the read boundary of workflow "Shirts only" \\(${wf.id}\\), which limits this credential's reads while its run is open$`), name)
    }
    assert.doesNotMatch(refusals.show.body, /\/d"/, 'no item leaks')
    // Another credential is not limited.
    assert.deepEqual((await app.get(REDIRECTS, bystander)).json().data.map((r: { id: string }) => r.id), ['r1', 'r2', 'r3'])
    assert.equal((await app.get(`${V1}/webhooks/dlq`, bystander)).statusCode, 200)

    // The run ends: served again, the old cursor included.
    dataOf(await app.report(w.token, { workflowId: wf.id, status: 'succeeded', runId: run.id, workerId: 'sync' }))
    const after = await app.get(`${REDIRECTS}?cursor=${encodeURIComponent(cursor)}`, w.token)
    assert.equal(after.statusCode, 200, after.body)
    assert.deepEqual(after.json().data.map((r: { id: string }) => r.id), ['r2', 'r3'])
    assert.equal((await app.get(`${V1}/webhooks/dlq`, w.token)).statusCode, 200)
  })
}
