// A worker cannot grow a run without bound: each report's metadata is capped, and so is the
// run's after merging (and its outcome references); a report past a cap is a 400 naming the
// member and the limit, and stores nothing of itself.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { RUN_LIMITS } from '../../src/jobs/run-limits.js'
import { jobsApp } from './helpers/jobs-app.js'

const blob = (bytes: number) => 'x'.repeat(bytes)

for (const dialect of await testDialects()) {
  test(`${dialect}: a report's metadata, a run's merged metadata and its outcome references are capped (400 naming the limit)`, async (t) => {
    const app = await jobsApp(dialect)
    t.after(() => app.close())
    const w = await app.worker()
    const wf = await app.define({ name: 'Growth', credentialId: w.id })
    app.clock.set('2025-06-02T09:05:00Z')
    const report = (body: Record<string, unknown>) => app.report(w.token, { workflowId: wf.id, workerId: 'a', ...body })
    const started = await report({ status: 'started', metadata: { first: 1 } })
    assert.equal(started.statusCode, 200, started.body)
    const runId = started.json().data.id

    // One report over the per-report limit: refused before anything is stored.
    const big = await report({ status: 'approval_requested', metadata: { a: blob(RUN_LIMITS.reportMetadataBytes) } })
    assert.equal(big.statusCode, 400, big.body)
    assert.deepEqual(big.json().error.details, [{ param: 'metadata', problem: `is ${RUN_LIMITS.reportMetadataBytes + 8} bytes of JSON; a report's metadata may be at most ${RUN_LIMITS.reportMetadataBytes} bytes` }])

    // Reports each under it, adding keys, until the merged metadata would pass the run's limit.
    const chunk = RUN_LIMITS.reportMetadataBytes - 100
    let accepted = 0
    let refused
    for (let i = 0; i < 10; i++) {
      const res = await report({ status: 'approval_requested', metadata: { [`k${i}`]: blob(chunk) } })
      if (res.statusCode !== 200) { refused = res; break }
      accepted++
    }
    assert.equal(accepted, Math.floor(RUN_LIMITS.runMetadataBytes / (chunk + 10)), 'as many as fit')
    assert.ok(refused, 'a report past the run limit is refused')
    assert.equal(refused.statusCode, 400, refused.body)
    assert.equal(refused.json().error.details[0].param, 'metadata')
    assert.match(refused.json().error.details[0].problem, new RegExp(`^merged into run ${runId}'s metadata it would make \\d+ bytes of JSON; a run's metadata may be at most ${RUN_LIMITS.runMetadataBytes} bytes`))
    // Replacing a key does not grow the run: still accepted.
    const replaced = await report({ status: 'approval_requested', metadata: { k0: 'small' } })
    assert.equal(replaced.statusCode, 200, replaced.body)
    const stored = replaced.json().data.metadata as Record<string, unknown>
    assert.equal(stored.k0, 'small')
    assert.equal(Object.keys(stored).length, accepted + 1, 'the refused report stored nothing')
    assert.ok(Buffer.byteLength(JSON.stringify(stored)) <= RUN_LIMITS.runMetadataBytes)

    // Outcome references: 200 a report, at most RUN_LIMITS.runOutcomeRefs a run.
    const refs = (from: number) => Array.from({ length: 200 }, (_, i) => ({ type: 'product', id: String(from + i) }))
    for (let i = 0; i < RUN_LIMITS.runOutcomeRefs / 200; i++) assert.equal((await report({ status: 'approval_requested', outcomeRefs: refs(i * 200) })).statusCode, 200)
    const tooMany = await report({ status: 'succeeded', outcomeRefs: refs(RUN_LIMITS.runOutcomeRefs) })
    assert.equal(tooMany.statusCode, 400, tooMany.body)
    assert.deepEqual(tooMany.json().error.details, [{ param: 'outcomeRefs', problem: `run ${runId} would hold ${RUN_LIMITS.runOutcomeRefs + 200} outcome references; a run may hold at most ${RUN_LIMITS.runOutcomeRefs}` }])
    const same = await report({ status: 'succeeded', outcomeRefs: refs(0) })
    assert.equal(same.statusCode, 200, 'references already held do not count twice')
    assert.equal(same.json().data.outcomeRefs.length, RUN_LIMITS.runOutcomeRefs)
  })
}
