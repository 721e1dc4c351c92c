// GET /openapi.json: an independent validator accepts the document, and it carries what a
// client needs: servers, the bearer scheme, parameters with their constraints, envelopes
// with item schemas, error responses, deprecated aliases.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Validator } from '@seriousme/openapi-schema-validator'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { errorCatalog } from '../../src/kernel/errors.js'
import { openapiDocument } from '../../src/contract/openapi.js'
import { serviceInfo } from '../../src/contract/service-info.js'
import { buildTestApp } from '../helpers/test-app.js'

const ALL_FLAGS = {
  PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true',
  PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true',
  PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true',
  PLUGIN_GATEHOUSE_BASE_URL: 'https://cms.example.test/',
}

test('@seriousme/openapi-schema-validator accepts the document as OpenAPI 3.1, with every flag off and on', async (t) => {
  for (const env of [{}, ALL_FLAGS]) {
    const app = await buildTestApp({ dialect: 'sqlite', env })
    t.after(() => app.close())
    const res = await app.get(`${BASE_PATH}/openapi.json`, await app.issueToken(['openapi:read']))
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^application\/json/)
    const doc = res.json()
    const validator = new Validator()
    const result = await validator.validate(doc)
    assert.deepEqual(result.errors ?? [], [], 'validator errors')
    assert.equal(result.valid, true)
    assert.equal(validator.version, '3.1')
    // Every $ref in the document resolves (the validator dereferences them all).
    assert.doesNotThrow(() => validator.resolveRefs())
  }
})

test('servers, security, info and tags', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: ALL_FLAGS })
  t.after(() => app.close())
  const doc = (await app.get(`${BASE_PATH}/openapi.json`, await app.issueToken(['openapi:read']))).json()
  assert.equal(doc.openapi, '3.1.0')
  assert.equal(doc.info.version, serviceInfo.version)
  assert.deepEqual(doc.servers.map((s: { url: string }) => s.url), ['https://cms.example.test/gatehouse/v1', '/gatehouse/v1'])
  assert.deepEqual(doc.components.securitySchemes.bearerAuth.type, 'http')
  assert.deepEqual(doc.components.securitySchemes.bearerAuth.scheme, 'bearer')
  assert.deepEqual(doc.security, [{ bearerAuth: [] }])
  const tags = new Set(doc.tags.map((x: { name: string }) => x.name))
  for (const item of Object.values(doc.paths) as Record<string, { tags: string[]; operationId: string }>[]) {
    for (const op of Object.values(item)) assert.ok(tags.has(op.tags[0]), `${op.operationId} tag is declared`)
  }
  // One reusable response per error code an operation can answer, narrowed to that code;
  // 405 (a method the document does not list) is in the capabilities taxonomy only, and
  // PROVIDER_UNAVAILABLE appears only with a provider loaded (test/contract/openapi-command.test.ts);
  // 408, 414 and 431 are answered before any operation is chosen (test/api/framework-answers.test.ts).
  const notPerOperation = new Set(['METHOD_NOT_ALLOWED', 'PROVIDER_UNAVAILABLE', 'REQUEST_TIMEOUT', 'URI_TOO_LONG', 'HEADERS_TOO_LARGE'])
  assert.deepEqual(Object.keys(doc.components.responses).sort(), Object.keys(errorCatalog).filter((c) => !notPerOperation.has(c)).sort())
  assert.equal(doc.components.responses.UNAUTHORIZED.content['application/json'].schema.allOf[1].properties.error.properties.code.const, 'UNAUTHORIZED')
  // Every error answer may carry the rate-limit headers, as every answer does.
  for (const [code, response] of Object.entries(doc.components.responses) as [string, { headers: Record<string, unknown> }][]) {
    for (const name of ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
      assert.deepEqual(response.headers[name], { $ref: `#/components/headers/${name}` }, `${code} declares ${name}`)
    }
  }
})

test('products.list: constrained parameters, the envelope around the product item, its errors', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const doc = (await app.get(`${BASE_PATH}/openapi.json`, await app.issueToken(['openapi:read']))).json()
  const op = doc.paths['/products'].get
  assert.equal(op.operationId, 'products.list')
  assert.deepEqual(op.security, [{ bearerAuth: ['products:read'] }])
  const param = (name: string) => op.parameters.find((p: { name: string }) => p.name === name)
  assert.deepEqual(param('limit'), { name: 'limit', in: 'query', required: false, description: 'Page size, 1..200', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50, description: 'Page size, 1..200' } })
  assert.deepEqual(param('status').schema.enum, ['live', 'pending', 'disabled', 'expired', 'all'])
  assert.deepEqual(param('sort').schema.enum, ['updatedAt', '-updatedAt', 'createdAt', '-createdAt', 'title', '-title'])
  assert.equal(param('updatedSince').schema.format, 'date-time')
  // No `default` keyword: the threshold counts only with lowStock=true (a 400 without it).
  assert.deepEqual(param('lowStockThreshold').schema, { type: 'integer', minimum: 0, description: 'Default 10; only with lowStock=true' })

  const ok = op.responses['200'].content['application/json'].schema
  assert.deepEqual(ok.required, ['ok', 'data', 'requestId', 'pagination', 'meta'])
  assert.equal(ok.additionalProperties, false)
  assert.deepEqual(ok.properties.data, { type: 'array', items: { $ref: '#/components/schemas/ProductsItem' } })
  assert.deepEqual(ok.properties.pagination, { $ref: '#/components/schemas/Pagination' })
  const item = doc.components.schemas.ProductsItem
  assert.equal(item.properties.totalStock.anyOf[0].type, 'integer')
  assert.equal(item.properties.updatedAt.format, 'date-time')
  assert.equal(item.additionalProperties, false)
  // `fields` may drop any property, so nothing is required; what a whole item has is listed.
  assert.equal(item.required, undefined)
  assert.ok(item['x-required-without-fields'].includes('totalStock'))
  // list and show share the item
  assert.deepEqual(doc.paths['/products/show'].get.responses['200'].content['application/json'].schema.properties.data, { $ref: '#/components/schemas/ProductsItem' })

  assert.deepEqual(Object.keys(op.responses), ['200', '400', '401', '403', '429', '500', '503'])
  assert.deepEqual(op.responses['400'], { $ref: '#/components/responses/INVALID_REQUEST' })
  assert.deepEqual(doc.paths['/products/show'].get.responses['404'], { $ref: '#/components/responses/NOT_FOUND' })
  assert.deepEqual(doc.paths['/changes'].get.responses['410'], { $ref: '#/components/responses/CURSOR_EXPIRED' })
  // The change feed's items are always whole (fields projects only the snapshot).
  assert.deepEqual(doc.components.schemas.ChangesItem.required, ['position', 'resourceType', 'resourceId', 'action', 'updatedAt', 'occurredAt', 'origin', 'snapshot'])
})

test('deprecated aliases are marked, with their successor; POST bodies are documented', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const doc = (await app.get(`${BASE_PATH}/openapi.json`, await app.issueToken(['openapi:read']))).json()
  const deprecated = Object.entries(doc.paths as Record<string, Record<string, { deprecated?: boolean; 'x-gatehouse-replaced-by'?: string }>>)
    .flatMap(([path, item]) => Object.entries(item).filter(([, op]) => op.deprecated).map(([m, op]) => `${m} ${path} → ${op['x-gatehouse-replaced-by']}`))
  // The successor is written as the full path, as the Link header and capabilities write it.
  assert.deepEqual(deprecated.sort(), ['get /consumers/lag → /gatehouse/v1/sync-state/lag', 'post /consumers/checkpoint → /gatehouse/v1/sync-state/checkpoint'])
  assert.match(doc.paths['/consumers/lag'].get.description, /Deprecated: use \/gatehouse\/v1\/sync-state\/lag\./)
  for (const path of ['/sync-state/lag', '/sync-state/checkpoint']) {
    for (const op of Object.values(doc.paths[path]) as { deprecated?: boolean }[]) assert.equal(op.deprecated, undefined)
  }
  const checkpoint = doc.paths['/sync-state/checkpoint'].post
  const body = checkpoint.requestBody.content['application/json'].schema
  assert.equal(checkpoint.requestBody.required, true)
  assert.ok(body.required.includes('resourceType'))
  for (const code of ['413', '415']) assert.ok(checkpoint.responses[code], `POST documents ${code}`)
})

test('the document is built once per app and sent as the same text each time', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['openapi:read'])
  const first = await app.get(`${BASE_PATH}/openapi.json`, token)
  const second = await app.get('/openapi.json', token)
  assert.equal(first.body, second.body)
  assert.equal(openapiDocument(app.routes, app.services.settings), openapiDocument(app.routes, app.services.settings))
  assert.equal(first.body, openapiDocument(app.routes, app.services.settings).text)
})
