// The tools call the read operations, so they inherit every read rule of the machine API:
// while a run of a bounded workflow is open, its credential's tools see only the records
// inside the boundary, as its HTTP reads do.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { dataOf } from '../admin/helpers/admin-client.js'
import { jobsApp } from '../jobs/helpers/jobs-app.js'
import { connect, structured, toolErrorOf } from './helpers/mcp-client.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: an open bounded run limits the credential's MCP reads as it limits its HTTP reads`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T08:30:00Z' })
    t.after(() => app.close())
    await seedSmallCatalog(app.services.store)
    const [inside, outside] = (await app.database.db.selectFrom('products').select('id').orderBy('id').execute()).map((r) => Number(r.id))
    const w = await app.worker(['jobs:read', 'jobs:report', 'products:read', 'changes:read'])
    const wf = await app.define({ name: 'Shirts only', credentialId: w.id, boundary: { productIds: [inside] } })
    const mcp = await connect(app, w.token)
    assert.equal(structured(await mcp.call('list_products', {})).data.length, 2)

    app.clock.set('2025-06-02T09:01:00Z')
    dataOf(await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'sync' }))
    const listed = structured(await mcp.call('list_products', {}))
    assert.deepEqual(listed.data.map((p: { id: number }) => p.id), [inside])
    const { ok: _ok, requestId: _requestId, ...http } = (await app.get('/gatehouse/v1/products', w.token)).json()
    assert.deepEqual(listed, http)
    const refused = toolErrorOf(await mcp.call('get_products', { id: outside }))
    assert.deepEqual(refused, { code: 'FORBIDDEN', message: (await app.get(`/gatehouse/v1/products/show?id=${outside}`, w.token)).json().error.message })
    assert.match(refused.message, /outside the read boundary of workflow "Shirts only"/)
    const feed = structured(await mcp.call('list_changes', { types: 'products', limit: 200 }))
    // The product outside is a record the worker may not see now: its changes are deletes without a snapshot.
    type Change = { resourceId: number; action: string; snapshot: unknown }
    assert.ok(feed.data.some((c: Change) => c.resourceId === inside && c.snapshot !== null))
    assert.ok(feed.data.filter((c: Change) => c.resourceId === outside).every((c: Change) => c.action === 'deleted' && c.snapshot === null))
    assert.deepEqual(feed, (({ ok: _o, requestId: _r, ...rest }) => rest)((await app.get('/gatehouse/v1/changes?types=products&limit=200', w.token)).json()), 'as over HTTP')
    await mcp.client.close()
  })
}
