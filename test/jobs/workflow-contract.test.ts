// The three job-runtime routes are in the published contract: /capabilities (with their
// scopes, which are offered because the routes exist), /openapi.json and /schema, each with
// its request and response schemas (enumerations listed).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'

const KEYS = ['workflows.list', 'workflows.show', 'workflows.run-report']

test('workflows.list, workflows.show and workflows.run-report in /capabilities, /openapi.json and /schema', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['capabilities:read', 'openapi:read', 'schema:read'])

  const caps = (await app.get('/capabilities', token)).json().data
  const endpoints = new Map(caps.endpoints.map((e: { key: string }) => [e.key, e]))
  assert.deepEqual(KEYS.map((k) => { const e = endpoints.get(k) as { method: string; path: string; scope: string }; return [e.method, e.path, e.scope] }), [
    ['GET', '/gatehouse/v1/workflows', 'jobs:read'], ['GET', '/gatehouse/v1/workflows/show', 'jobs:read'], ['POST', '/gatehouse/v1/workflows/run-report', 'jobs:report'],
  ])
  const offered = caps.scopes.map((s: { scope: string }) => s.scope)
  assert.ok(offered.includes('jobs:read') && offered.includes('jobs:report'))

  const doc = (await app.get('/openapi.json', token)).json()
  const list = doc.paths['/workflows'].get
  const param = (name: string) => list.parameters.find((p: { name: string }) => p.name === name)
  assert.deepEqual(param('dueOnly').schema.enum, ['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  assert.deepEqual(param('status').schema.enum, ['active', 'paused'])
  assert.ok(param('cursor') && param('limit') && param('templateKey'))
  assert.equal(doc.paths['/workflows/show'].get.parameters.find((p: { name: string }) => p.name === 'id').required, true)
  const report = doc.paths['/workflows/run-report'].post
  const body = report.requestBody.content['application/json'].schema
  assert.deepEqual(body.required, ['workflowId', 'status'])
  assert.deepEqual(body.properties.status.enum, ['started', 'succeeded', 'failed', 'blocked', 'approval_requested'])
  assert.deepEqual(Object.keys(body.properties), ['workflowId', 'status', 'runId', 'workerId', 'summary', 'approvalIds', 'outcomeRefs', 'metadata'])
  assert.ok(report.responses['409'] && report.responses['404'] && report.responses['400'])
  const ok = report.responses['200'].content['application/json'].schema
  assert.ok(ok.properties.data, 'the run schema')

  const catalog = (await app.get('/gatehouse/v1/schema', token)).json().data.endpoints as { key: string; query: unknown; body: { required: string[] } | null; response: { properties: { data: { properties?: Record<string, unknown>; items?: { properties: Record<string, unknown> } } } } }[]
  const entry = (key: string) => catalog.find((e) => e.key === key)
  assert.deepEqual(entry('workflows.run-report')?.body?.required, ['workflowId', 'status'])
  const run = entry('workflows.run-report')?.response.properties.data.properties ?? {}
  assert.deepEqual(Object.keys(run), ['id', 'workflowId', 'occurrence', 'status', 'workerId', 'summary', 'approvalIds', 'outcomeRefs', 'metadata', 'startedAt', 'updatedAt', 'finishedAt', 'leaseExpiresAt'])
  const workflow = entry('workflows.list')?.response.properties.data.items?.properties ?? {}
  for (const field of ['schedule', 'boundary', 'nextDueAt', 'isDue', 'overdue', 'latestRun']) assert.ok(field in workflow, field)
  assert.ok(entry('workflows.show')?.query)
})
