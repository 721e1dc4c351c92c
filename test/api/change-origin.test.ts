// Every change carries its origin (admin, credential, control, import, job, system); the
// credential and execution ids show only to that credential; /changes filters by origin and a
// two-way sync leaves out its own writes with excludeOwn=true.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { testDialects } from '../helpers/test-app.js'
import { adminClient, adminTestApp, dataOf } from '../admin/helpers/admin-client.js'
import { importNdjson } from '../../src/loaders/ndjson-import.js'
import { AGENT_SCOPES, controlApp, openPolicy } from '../control/helpers/control-app.js'

interface Item { position: number; resourceId: number; action: string; origin: Record<string, string> }

for (const dialect of await testDialects()) {
  test(`${dialect}: changes name their origin; ids only to their own credential; origin and excludeOwn filter the feed`, async () => {
    const app = await adminTestApp(dialect)
    try {
      const admin = adminClient(app)
      const { credential: worker, token: workerToken } = await app.services.credentials.create({ label: 'two-way sync', scopes: ['changes:read', 'tags:read'] })
      const otherToken = await app.issueToken(['changes:read', 'tags:read'])

      await app.services.store.create('tags', { group: 'g', title: 'System', slug: 'system' })
      const byAdmin = dataOf(await admin.post('/tags', { group: 'g', title: 'Admin', slug: 'admin' }), 201)
      const own = { 'x-gatehouse-origin-credential': worker.id }
      const byWorker = dataOf(await admin.post('/tags', { group: 'g', title: 'Worker', slug: 'worker' }, own), 201)
      dataOf(await admin.patch(`/tags/${byWorker.id}`, { title: 'Worker 2' }, own))
      await importNdjson(app.services.store, Readable.from([JSON.stringify({ type: 'tags', record: { group: 'g', title: 'Imported', slug: 'imported' } }) + '\n']))

      const feed = async (token: string, query = '') => {
        const res = await app.get(`/gatehouse/v1/changes?types=tags${query}`, token)
        assert.equal(res.statusCode, 200, res.body)
        return res.json().data as Item[]
      }
      const seen = await feed(workerToken)
      assert.deepEqual(seen.map((i) => i.origin), [
        { kind: 'system' }, { kind: 'admin' },
        { kind: 'credential', credentialId: worker.id }, { kind: 'credential', credentialId: worker.id },
        { kind: 'import' },
      ])
      // Another credential sees the kind only.
      assert.deepEqual((await feed(otherToken)).map((i) => i.origin.kind), ['system', 'admin', 'credential', 'credential', 'import'])
      assert.ok((await feed(otherToken)).every((i) => i.origin.credentialId === undefined))

      // excludeOwn leaves out the worker's writes for the worker only.
      assert.deepEqual((await feed(workerToken, '&excludeOwn=true')).map((i) => i.resourceId), [seen[0].resourceId, byAdmin.id, seen[4].resourceId])
      assert.equal((await feed(otherToken, '&excludeOwn=true')).length, 5)
      assert.deepEqual((await feed(workerToken, '&origin=admin,import')).map((i) => i.origin.kind), ['admin', 'import'])

      // A page with excludeOwn resumes after what it read; the next page applies excludeOwn as given.
      const page = (await app.get('/gatehouse/v1/changes?types=tags&excludeOwn=true', workerToken)).json()
      assert.equal(page.meta.position, seen[4].position)
      await app.services.store.create('tags', { group: 'g', title: 'Later', slug: 'later' })
      dataOf(await admin.post('/tags', { group: 'g', title: 'Mine again', slug: 'mine-again' }, own), 201)
      const next = await app.get(`/gatehouse/v1/changes?excludeOwn=true&cursor=${page.pagination.nextCursor}`, workerToken)
      assert.deepEqual(next.json().data.map((i: Item) => i.origin.kind), ['system'])
      const withOwn = await app.get(`/gatehouse/v1/changes?cursor=${page.pagination.nextCursor}`, workerToken)
      assert.deepEqual(withOwn.json().data.map((i: Item) => i.origin.kind), ['system', 'credential'])

      const bad = await app.get('/gatehouse/v1/changes?origin=robot', workerToken)
      assert.equal(bad.statusCode, 400)
      assert.deepEqual(bad.json().error.details, [{ param: 'origin', problem: 'unknown origin robot; must be one of: admin, credential, control, import, job, system' }])
      const unknown = await admin.post('/tags', { group: 'g', title: 'X', slug: 'x' }, { 'x-gatehouse-origin-credential': 'cred_nobody' })
      assert.equal(unknown.statusCode, 400)
      assert.deepEqual(unknown.json().error.details, [{ param: 'X-Gatehouse-Origin-Credential', problem: 'no credential with id cred_nobody' }])
    } finally {
      await app.close()
    }
  })
}

for (const dialect of await testDialects()) {
  test(`${dialect}: a control execution's changes carry its credential and execution id, to that credential only`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    await app.upsertPolicy(openPolicy('open', '*'))
    const { credential, token: agent } = await app.services.credentials.create({ label: 'agent', scopes: [...AGENT_SCOPES, 'changes:read', 'variants:read'] })
    const other = await app.token(['changes:read', 'variants:read'])
    const { position } = (await app.get('/gatehouse/v1/changes/position', agent)).json().data
    const res = await app.execute(agent, { actionType: 'variant.setPrice', payload: { variantId: app.ids.variants, price: 30 } })
    assert.equal(res.json().data.status, 'succeeded', res.body)
    const executionId = res.json().data.id as string
    const own = (await app.get(`/gatehouse/v1/changes?types=variants&after=${position}`, agent)).json().data as Item[]
    assert.deepEqual(own.map((i) => i.origin), [{ kind: 'control', credentialId: credential.id, executionId }])
    const seen = (await app.get(`/gatehouse/v1/changes?types=variants&after=${position}`, other)).json().data as Item[]
    assert.deepEqual(seen.map((i) => i.origin), [{ kind: 'control' }])
    assert.deepEqual((await app.get(`/gatehouse/v1/changes?types=variants&after=${position}&excludeOwn=yes`, agent)).json().data, [])
  })
}

for (const dialect of await testDialects()) {
  test(`${dialect}: an execution made while the credential holds a job run open is that run's write (origin job with its run id)`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    await app.upsertPolicy(openPolicy('open', '*'))
    const { credential, token: worker } = await app.services.credentials.create({ label: 'scheduled sync', scopes: [...AGENT_SCOPES, 'changes:read', 'jobs:read', 'jobs:report'] })
    const other = await app.token(['changes:read', 'variants:read'])
    const made = await app.admin('POST', '/workflows', { name: 'Nightly prices', templateKey: 'scheduled-catalog-sync', schedule: { cron: '0 * * * *', timezone: 'UTC' }, credentialId: credential.id })
    assert.equal(made.statusCode, 201, made.body)
    const workflowId = made.json().data.id as string
    const report = (status: string) => app.post('/gatehouse/v1/workflows/run-report', { workflowId, status }, worker)
    const setPrice = async (price: number) => {
      const res = await app.execute(worker, { actionType: 'variant.setPrice', payload: { variantId: app.ids.variants, price } })
      assert.equal(res.json().data.status, 'succeeded', res.body)
      return res.json().data.id as string
    }
    const changesAfter = async (position: number, token = worker) => (await app.get(`/gatehouse/v1/changes?types=variants&after=${position}`, token)).json().data as Item[]

    const { position } = (await app.get('/gatehouse/v1/changes/position', worker)).json().data
    // An hour on, the hourly workflow is due (the runtime's clock; the lease runs on it too).
    app.services.jobs.useClock(() => Date.now() + 3_600_000)
    const started = await report('started')
    assert.equal(started.statusCode, 200, started.body)
    const runId = started.json().data.id as string
    await setPrice(41)
    assert.deepEqual((await changesAfter(position)).map((i) => i.origin), [{ kind: 'job', credentialId: credential.id, runId }])
    assert.deepEqual((await changesAfter(position, other)).map((i) => i.origin), [{ kind: 'job' }])
    assert.deepEqual((await app.get(`/gatehouse/v1/changes?types=variants&after=${position}&origin=job`, other)).json().data.length, 1)
    assert.deepEqual((await app.get(`/gatehouse/v1/changes?types=variants&after=${position}&excludeOwn=true`, worker)).json().data, [])

    // Once the run is over, the credential's executions are its own control writes again.
    assert.equal((await app.post('/gatehouse/v1/workflows/run-report', { workflowId, runId, status: 'succeeded' }, worker)).statusCode, 200)
    const executionId = await setPrice(42)
    assert.deepEqual((await changesAfter(position)).map((i) => i.origin).at(-1), { kind: 'control', credentialId: credential.id, executionId })
  })
}
