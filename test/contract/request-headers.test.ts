// Every request header an operation demands is in the OpenAPI document, with the same
// constraints the server checks (generated clients send only what the document declares).
// The list of routes and headers comes from the route registry, not from this file.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { TSchema } from '@sinclair/typebox'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { openapiPath } from '../../src/contract/route-contract.js'
import { buildTestApp } from '../helpers/test-app.js'

const ALL_FLAGS = { PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true', PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true', PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' }

interface Parameter { name?: string; in?: string; required?: boolean; schema?: Record<string, unknown>; $ref?: string }

test('each header a route declares is a header parameter of its operation, with its constraints', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: ALL_FLAGS })
  t.after(() => app.close())
  const doc = (await app.get(`${BASE_PATH}/openapi.json`, await app.issueToken(['openapi:read']))).json()
  const withHeaders = app.routes.filter((r) => r.headers !== undefined)
  assert.ok(withHeaders.some((r) => r.key === 'control.actions.execute'), 'the execute route declares its header')
  for (const route of withHeaders) {
    const op = doc.paths[openapiPath(route.path)][route.method.toLowerCase()]
    const required = new Set(route.headers?.required ?? [])
    for (const [name, schema] of Object.entries(route.headers?.properties ?? {}) as [string, TSchema][]) {
      const p = (op.parameters as Parameter[]).find((x) => x.in === 'header' && x.name === name)
      assert.ok(p, `${route.key} declares header ${name}`)
      assert.equal(p.required, required.has(name), `${route.key} ${name} required`)
      for (const k of ['type', 'pattern', 'minLength', 'maxLength']) assert.equal(p.schema?.[k], schema[k], `${route.key} ${name} ${k}`)
    }
  }
  const execute = (doc.paths['/control/actions/execute'].post.parameters as Parameter[]).find((p) => p.name === 'Idempotency-Key')
  assert.deepEqual({ ...execute, schema: { ...execute?.schema, description: undefined } }, {
    name: 'Idempotency-Key', in: 'header', required: true,
    description: '1–200 characters of A-Z a-z 0-9 . _ : -, a key of your choosing that identifies this execution',
    schema: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._:-]{1,200}$', description: undefined },
  })
  // X-Request-Id is read on every request: every operation points at its shared declaration.
  assert.deepEqual(doc.components.parameters['X-Request-Id'].schema, { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' })
  for (const [path, item] of Object.entries(doc.paths) as [string, Record<string, { parameters: Parameter[] }>][]) {
    for (const [method, op] of Object.entries(item)) {
      assert.ok(op.parameters.some((p) => p.$ref === '#/components/parameters/X-Request-Id'), `${method} ${path} declares X-Request-Id`)
    }
  }
})

test('the server demands exactly the declared headers: missing or malformed is a 400 naming the header', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: ALL_FLAGS })
  t.after(() => app.close())
  const withRequired = app.routes.filter((r) => (r.headers?.required ?? []).length > 0)
  assert.ok(withRequired.length > 0)
  for (const route of withRequired) {
    const token = await app.issueToken([route.scope])
    const call = (headers: Record<string, string>) => route.method === 'GET'
      ? app.get(BASE_PATH + route.path, token, headers)
      : app.post(BASE_PATH + route.path, {}, token, headers)
    const valid = Object.fromEntries((route.headers?.required ?? []).map((n) => [n, 'k-1']))
    for (const name of route.headers?.required ?? []) {
      const { [name]: _left, ...others } = valid
      const missing = await call(others)
      assert.equal(missing.statusCode, 400, `${route.key} without ${name}`)
      assert.deepEqual(missing.json().error.details, [{ param: name, problem: `this header is required: ${String(route.headers?.properties[name].description)}` }])
      const bad = await call({ ...others, [name]: 'has spaces' })
      assert.equal(bad.statusCode, 400, `${route.key} with a malformed ${name}`)
      assert.equal(bad.json().error.details[0].param, name)
      assert.match(bad.json().error.details[0].problem, /^must be /)
      // With the header well formed, the body is what is checked next.
      const next = await call(valid)
      assert.ok(!(next.json().error?.details ?? []).some((d: { param: string }) => d.param === name), `${route.key} accepts a well-formed ${name}`)
    }
  }
})

test('a client\'s own X-Request-Id is kept, as declared', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const res = await app.get(`${BASE_PATH}/health`, await app.issueToken(['health:read']), { 'X-Request-Id': 'trace.42:a-b' })
  assert.equal(res.headers['x-request-id'], 'trace.42:a-b')
  assert.equal(res.json().requestId, 'trace.42:a-b')
})
