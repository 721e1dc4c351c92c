// GET /schema: versions, one endpoint or all, self-contained schemas equal to the OpenAPI
// document's, and response schemas that real answers satisfy.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Ajv2020 } from 'ajv/dist/2020.js'
import * as ajvFormats from 'ajv-formats'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { inlineRefs, type JsonSchema } from '../../src/contract/json-schema.js'
import { buildTestApp } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'

const addFormats = ajvFormats.default.default ?? ajvFormats.default

test('version: v1 by default; an unknown version is a 400 naming the supported ones', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['schema:read'])
  const all = (await app.get(`${BASE_PATH}/schema`, token)).json()
  assert.equal(all.data.version, 'v1')
  assert.deepEqual((await app.get(`${BASE_PATH}/schema?version=v1`, token)).json().data, all.data)
  const v2 = await app.get(`${BASE_PATH}/schema?version=v2`, token)
  assert.equal(v2.statusCode, 400)
  assert.equal(v2.json().error.code, 'INVALID_REQUEST')
  assert.deepEqual(v2.json().error.details, [{ param: 'version', problem: 'must be one of: v1' }])
  const withoutScope = await app.get(`${BASE_PATH}/schema`, await app.issueToken(['openapi:read']))
  assert.equal(withoutScope.json().error.message, 'Missing required scope: schema:read')
})

test('endpoint: one entry by key; unknown or switched-off keys are 404', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['schema:read'])
  const doc = (await app.get(`${BASE_PATH}/openapi.json`, await app.issueToken(['openapi:read']))).json()
  const components = doc.components.schemas as Record<string, JsonSchema>

  for (const key of ['products.list', 'entries.show', 'changes.feed', 'syncstate.checkpoint']) {
    const res = await app.get(`${BASE_PATH}/schema?endpoint=${key}`, token)
    assert.equal(res.statusCode, 200, key)
    const [entry] = res.json().data.endpoints
    assert.equal(res.json().data.endpoints.length, 1)
    assert.equal(entry.key, key)
    // The same schemas as the OpenAPI document, with its references written out.
    const [path, item] = Object.entries(doc.paths as Record<string, Record<string, { operationId: string; responses: Record<string, { content: Record<string, { schema: JsonSchema }> }> }>>)
      .find(([, i]) => Object.values(i).some((op) => op.operationId === key)) ?? []
    assert.ok(item && path, key)
    const op = Object.values(item).find((o) => o.operationId === key)
    assert.ok(op)
    assert.deepEqual(entry.response, inlineRefs(op.responses['200'].content['application/json'].schema, components))
    assert.equal(JSON.stringify(entry.response).includes('$ref'), false)
    assert.equal(entry.path, BASE_PATH + path)
  }
  const list = (await app.get(`${BASE_PATH}/schema?endpoint=products.list`, token)).json().data.endpoints[0]
  assert.deepEqual(list.query.properties.limit, { type: 'integer', minimum: 1, maximum: 200, default: 50, description: 'Page size, 1..200' })
  assert.equal(list.query.additionalProperties, false)
  assert.equal(list.body, null)
  assert.deepEqual(list.errors.map((e: { code: string }) => e.code), ['INVALID_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMIT_EXCEEDED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'])
  const checkpoint = (await app.get(`${BASE_PATH}/schema?endpoint=syncstate.checkpoint`, token)).json().data.endpoints[0]
  assert.ok(checkpoint.body.required.includes('resourceType'))

  for (const key of ['nope.list', 'users.list']) {
    const res = await app.get(`${BASE_PATH}/schema?endpoint=${key}`, token)
    assert.equal(res.statusCode, 404, key)
    assert.equal(res.json().error.code, 'NOT_FOUND')
    assert.match(res.json().error.message, new RegExp(`"${key.replace('.', '\\.')}"`))
  }
})

test('every catalog response schema accepts the real answers of its endpoint', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true' } })
  t.after(() => app.close())
  await seedSmallCatalog(app.services.store)
  const token = await app.issueToken(['schema:read', 'products:read', 'entries:read', 'users:read', 'users:read_sensitive', 'changes:read', 'capabilities:read'])
  const catalog = (await app.get(`${BASE_PATH}/schema`, token)).json().data
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  const checked: string[] = []
  for (const [key, url] of [
    ['products.list', '/products'], ['products.show', '/products/show?slug=blue-shirt'], ['products.list', '/products?fields=id,variants.sku'],
    ['entries.list', '/entries'], ['users.show', '/users/show?username=ada'], ['changes.feed', '/changes?fields=title'],
    ['capabilities.describe', '/capabilities'], ['schema.catalog', '/schema?endpoint=tags.list'],
  ]) {
    const entry = catalog.endpoints.find((e: { key: string }) => e.key === key)
    const body = (await app.get(BASE_PATH + url, token)).json()
    const validate = ajv.compile(entry.response)
    assert.ok(validate(body), `${url}: ${JSON.stringify(validate.errors)}`)
    checked.push(key)
  }
  assert.equal(checked.length, 8)
})
