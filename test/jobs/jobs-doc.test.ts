// docs/jobs.md stays true: its worked example runs, block after block in one shell, against a
// live server, with the answers it promises: the wait for the first occurrence, the claim, the
// second worker's 409, the boundary, the report and the history. The job clock starts in the
// middle of a minute (the new workflow is not due yet, as when a reader runs it) and runs ten
// times faster than real time, so the example's 5-second poll sees the next minute come.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { ADMIN_TOKEN, jobsApp } from './helpers/jobs-app.js'
import { runShellBlock } from '../helpers/doc-shell.js'

const MARK = '---- end of block ----'

test('the worked example in docs/jobs.md runs against a live server', async (t) => {
  const doc = readFileSync('docs/jobs.md', 'utf8')
  const example = doc.slice(doc.indexOf('## Worked example'))
  const blocks = [...example.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1])
  assert.ok(blocks.length >= 7, `expected the example's blocks, found ${blocks.length}`)

  const app = await jobsApp('sqlite')
  t.after(() => app.close())
  const start = Date.parse('2025-06-02T09:00:30Z')
  const t0 = Date.now()
  app.services.jobs.useClock(() => start + (Date.now() - t0) * 10)
  await seedSmallCatalog(app.services.store)
  await app.app.listen({ host: '127.0.0.1', port: 0 })
  const url = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`

  // The first block sets the variables the test gives itself; its helper function is kept.
  const script = ['set -eu', ...blocks.map((b, i) => (i === 0 ? b.split('\n').filter((l) => !l.startsWith('export ')).join('\n') : b) + `\nprintf '\\n%s\\n' '${MARK}'`)].join('\n')
  const { stdout } = await runShellBlock(script, { GATEHOUSE_URL: url, GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN })
  const outputs = stdout.split(MARK).map((o) => o.trim())
  const json = (i: number) => JSON.parse(outputs[i])
  blocks.forEach((block, i) => {
    if (outputs[i] === '') return
    const expect = /# expect: (\w+)/.exec(block)?.[1]
    const body = json(i)
    if (expect) assert.equal(body.error?.code, expect, block)
    else assert.equal(body.ok, true, `${block}\n${outputs[i].slice(0, 300)}`)
  })

  const workflow = json(1).data
  // Created mid-minute, it waits for the next minute; the worker's poll waited for it and claimed it.
  const firstMinute = new Date(Math.ceil(Date.parse(workflow.createdAt) / 60_000) * 60_000).toISOString()
  assert.deepEqual({ boundary: workflow.boundary, isDue: workflow.isDue, nextDueAt: workflow.nextDueAt }, { boundary: { sections: [], entryIds: [], productIds: [1] }, isDue: false, nextDueAt: firstMinute })
  const claimed = json(2).data
  assert.deepEqual({ status: claimed.status, occurrence: claimed.occurrence, workerId: claimed.workerId }, { status: 'started', occurrence: firstMinute, workerId: 'sync-1' })
  assert.match(json(3).error.message, /held by run .* \(worker sync-1\)/)
  assert.deepEqual(json(4).data, [{ id: 1, title: 'Blue shirt' }], 'one product inside the boundary, of two')
  assert.equal(json(5).data.status, 'succeeded')
  assert.deepEqual(json(6).data.map((r: { id: string; status: string }) => [r.id, r.status]), [[claimed.id, 'succeeded']])
  const audit = await app.jobAudit()
  assert.deepEqual(audit.map((a) => `${a.action}:${a.outcome}`), ['workflow.create:success', 'run.started:success', 'run.started:denied', 'run.succeeded:success'])
})
