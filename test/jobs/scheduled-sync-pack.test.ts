// The "scheduled catalog sync" starter pack against a live server on a real port: each
// snippet (Node, curl, Python when installed) finds its due workflow, reports started, follows
// the product change feed inside the workflow's read boundary and reports succeeded; run again
// before the next occurrence, it finds nothing due.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { testDialects } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { jobsApp } from './helpers/jobs-app.js'
import { hasPython, runSnippet as run, type SnippetLanguage } from '../helpers/snippets.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: the scheduled catalog sync snippets run their due workflow end to end`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T08:30:00Z' })
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-jobs-pack-'))
    t.after(async () => { await app.close(); rmSync(dir, { recursive: true, force: true }) })
    await seedSmallCatalog(app.services.store)
    const [inside] = (await app.database.db.selectFrom('products').select('id').orderBy('id').execute()).map((r) => Number(r.id))
    await app.app.listen({ host: '127.0.0.1', port: 0 })
    const baseUrl = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`

    const pack = (await app.get('/gatehouse/v1/starter-packs?templateId=scheduled-catalog-sync', await app.issueToken(['templates:read']))).json().data[0]
    assert.equal(pack.available, true)
    for (const s of pack.snippets) writeFileSync(join(dir, s.filename), s.content)

    for (const s of pack.snippets as { language: SnippetLanguage; filename: string }[]) {
      if (s.language === 'python' && !hasPython) continue
      app.clock.set('2025-06-02T08:30:00Z')
      const w = await app.worker(pack.requiredScopes)
      const wf = await app.define({ name: `Sync ${s.language}`, credentialId: w.id, boundary: { productIds: [inside] } })
      app.clock.set('2025-06-02T09:02:00Z')
      const env = { GATEHOUSE_BASE_URL: baseUrl, GATEHOUSE_TOKEN: w.token, GATEHOUSE_WORKER_ID: `worker-${s.language}` }

      const first = await run(dir, s.language, s.filename, env)
      assert.equal(first.status, 0, `${s.filename}: ${first.stderr}${first.stdout}`)
      const runs = await app.database.db.selectFrom('workflow_runs').selectAll().where('workflow_id', '=', wf.id).execute()
      assert.equal(runs.length, 1, s.filename)
      assert.deepEqual({ status: runs[0].status, worker: runs[0].worker_id, occurrence: Number(runs[0].occurrence) },
        { status: 'succeeded', worker: `worker-${s.language}`, occurrence: Date.parse('2025-06-02T09:00:00Z') }, s.filename)
      assert.match(first.stdout, new RegExp(`run ${runs[0].id as string} succeeded`), s.filename)
      if (s.language !== 'curl') {
        // While the run was open only the product inside came with its snapshot; the one outside
        // came as deletes, for a copy to drop.
        assert.match(first.stdout, /applied \d+ changes to 1 products, dropped 1/, first.stdout)
        assert.deepEqual([JSON.parse(runs[0].metadata as string).products, JSON.parse(runs[0].metadata as string).dropped], [1, 1])
      }
      const audit = await app.database.db.selectFrom('control_audit').select('action').where('category', '=', 'job').where('actor_id', '=', w.id).orderBy('id').execute()
      assert.deepEqual(audit.map((a) => a.action), ['run.started', 'run.succeeded'])

      const again = await run(dir, s.language, s.filename, env)
      assert.equal(again.status, 0, again.stderr)
      assert.match(again.stdout, /no workflow is due|not due/, `${s.filename} the second time: ${again.stdout}`)
    }
  })
}
