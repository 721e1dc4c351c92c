// Bodies nest at most 64 levels of objects and arrays. 10,000 levels used to answer 500 (a
// recursive walk overflowed the stack) on checkpoint, admin and control routes; now every
// route that takes a body answers 400 naming the limit, before validation runs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'
import { MAX_JSON_DEPTH } from '../../src/api/json-body.js'

const ADMIN_TOKEN = 'admin-token-for-depth-tests'
const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)
const nestedObjects = (depth: number, key = 'a') => `{"${key}":`.repeat(depth) + '1' + '}'.repeat(depth)
/** An object body whose `member` holds nested objects, `depth` levels deep in all. */
const inMember = (member: string, depth: number, rest = '') => `{${rest}"${member}":${nestedObjects(depth - 1)}}`

test('bodies nested deeper than the limit are 400 naming it on every route that takes a body; nothing is written', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN, PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' } })
  t.after(() => app.close())
  assert.equal(MAX_JSON_DEPTH, 64)
  const token = await app.issueToken(['syncstate:write', 'webhooks:dlq:replay', 'control:policies:write', 'control:approvals:request', 'control:approvals:decide',
    'control:actions:simulate', 'control:actions:execute'])
  const send = (method: 'POST' | 'PATCH', url: string, payload: string, admin = false) => app.app.inject({
    method, url, payload,
    headers: { authorization: `Bearer ${admin ? ADMIN_TOKEN : token}`, 'content-type': 'application/json', 'idempotency-key': 'deep-1' },
  })
  const routes: ['POST' | 'PATCH', string, boolean][] = [
    ['POST', '/gatehouse/v1/sync-state/checkpoint', false], ['POST', '/gatehouse/v1/consumers/checkpoint', false],
    ['POST', '/gatehouse/v1/webhooks/dlq/replay', false], ['POST', '/gatehouse/v1/control/policies/upsert', false],
    ['POST', '/gatehouse/v1/control/approvals/request', false], ['POST', '/gatehouse/v1/control/approvals/decide', false],
    ['POST', '/gatehouse/v1/control/policy-simulate', false], ['POST', '/gatehouse/v1/control/actions/execute', false],
    ['POST', '/gatehouse/admin/v1/entries', true], ['PATCH', '/gatehouse/admin/v1/entries/1', true], ['POST', '/gatehouse/admin/v1/credentials', true],
    ['POST', '/gatehouse/admin/v1/control/policies/upsert', true], ['POST', '/gatehouse/admin/v1/webhooks/dlq/replay', true],
  ]
  for (const [method, url, admin] of routes) {
    for (const body of [nestedArrays(10_000), nestedObjects(10_000), inMember('metadata', 100_000, '"resourceType":"products",'), nestedArrays(MAX_JSON_DEPTH + 1)]) {
      const res = await send(method, url, body, admin)
      assert.equal(res.statusCode, 400, `${method} ${url} (${body.length} bytes): ${res.body.slice(0, 300)}`)
      const error = JSON.parse(res.body).error
      assert.equal(error.code, 'INVALID_REQUEST')
      assert.equal(error.message, 'Request body nests deeper than 64 levels')
      assert.deepEqual(error.details, [{ param: '(body)', problem: 'must not nest objects and arrays deeper than 64 levels' }])
    }
  }
  // Brackets inside strings are text, not nesting; exactly the limit is allowed through to validation.
  const text = await send('POST', '/gatehouse/v1/sync-state/checkpoint', JSON.stringify({ resourceType: 'products', metadata: { note: '['.repeat(5000) + '\\"{' } }))
  assert.equal(text.statusCode, 200, text.body)
  const atLimit = await send('POST', '/gatehouse/v1/sync-state/checkpoint', inMember('metadata', MAX_JSON_DEPTH, '"resourceType":"products",'))
  assert.equal(atLimit.statusCode, 200, atLimit.body)
  const over = await send('POST', '/gatehouse/v1/sync-state/checkpoint', inMember('metadata', MAX_JSON_DEPTH + 1, '"resourceType":"products",'))
  assert.equal(over.statusCode, 400)
  assert.equal(await app.services.store.get('entries', 1), undefined)
})
