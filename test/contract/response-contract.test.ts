// The harness checks every machine-API answer against the OpenAPI document, and a mismatch
// fails the test that provoked it: here a stored document that drifted from its schema, an
// undocumented status, an undocumented media type and an undeclared envelope member.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { openapiDocument } from '../../src/contract/openapi.js'
import { buildTestApp } from '../helpers/test-app.js'
import { ResponseContract } from '../helpers/response-contract.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'

test('a body that does not match its documented schema is recorded, and close() fails naming it', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  let closed = false
  try {
    const { ids } = await seedSmallCatalog(app.services.store)
    const token = await app.issueToken(['products:read'])
    const fine = await app.get(`${BASE_PATH}/products`, token)
    assert.equal(fine.statusCode, 200)
    assert.deepEqual(app.contractViolations, [], 'well-formed answers pass')

    // A stored document drifts from the item schema: the server splices it out unchecked.
    const row = await sql<{ doc: string }>`SELECT doc FROM products WHERE id = ${ids.products}`.execute(app.database.db)
    const doc = JSON.parse(row.rows[0].doc)
    await sql`UPDATE products SET doc = ${JSON.stringify({ ...doc, title: 123, surprise: true })} WHERE id = ${ids.products}`.execute(app.database.db)

    const drifted = await app.get(`${BASE_PATH}/products/show?id=${ids.products}`, token)
    assert.equal(drifted.statusCode, 200)
    assert.equal(drifted.json().data.title, 123)
    // Requests made straight through Fastify are checked as well.
    await app.app.inject({ method: 'GET', url: `${BASE_PATH}/products?limit=1&sort=createdAt`, headers: { authorization: `Bearer ${token}` } })

    assert.equal(app.contractViolations.length, 2)
    assert.match(app.contractViolations[0], /^GET \/gatehouse\/v1\/products\/show\?id=\d+ → 200 \(products\.show\): body does not match/)
    assert.match(app.contractViolations[0], /\/data\/title must be string/)
    assert.match(app.contractViolations[0], /must NOT have additional properties \(surprise\)/)
    assert.match(app.contractViolations[1], /\(products\.list\).*\/data\/0\/title must be string/)

    closed = true
    await assert.rejects(app.close(), (err: Error) => {
      assert.match(err.message, /^2 machine-API answer\(s\) did not match the OpenAPI document:/)
      assert.match(err.message, /products\.show/)
      return true
    })
  } finally {
    if (!closed) await app.close()
  }
})

test('undocumented statuses, media types and envelope members are mismatches too', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const contract = new ResponseContract(openapiDocument(app.routes, app.services.settings).doc)
  const route = (key: string) => {
    const r = app.routes.find((x) => x.key === key)
    assert.ok(r, key)
    return r
  }
  const json = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req_1' }
  const answer = (status: number, body: unknown, headers: Record<string, string> = json) =>
    ({ method: 'GET', url: '/gatehouse/v1/x', status, headers, body: JSON.stringify(body) })

  const conflict = { error: { code: 'CONFLICT', message: 'no' }, requestId: 'req_1' }
  assert.match(contract.check(route('products.show'), answer(409, conflict)) ?? '', /status 409 is not documented for products\.show/)

  const notFound = { error: { code: 'NOT_FOUND', message: 'No products record matches id=9' }, requestId: 'req_1' }
  assert.equal(contract.check(route('products.show'), answer(404, notFound)), undefined)
  // The status's own code, not another one.
  assert.match(contract.check(route('products.show'), answer(404, { ...notFound, error: { ...notFound.error, code: 'CONFLICT' } })) ?? '', /must be equal to constant/)

  const whoami = { ok: true, data: { credentialId: 'c', label: 'l', scopes: [], source: 'managed' }, requestId: 'req_1' }
  assert.equal(contract.check(route('auth.whoami'), answer(200, whoami)), undefined)
  assert.match(contract.check(route('auth.whoami'), answer(200, { ...whoami, pagination: { hasMore: false, nextCursor: null } })) ?? '', /additional properties \(pagination\)/)
  assert.match(contract.check(route('auth.whoami'), answer(200, whoami, { 'content-type': 'text/html', 'x-request-id': 'r' })) ?? '', /media type "text\/html" is not documented/)
  assert.match(contract.check(route('auth.whoami'), answer(200, whoami, { 'content-type': 'application/json' })) ?? '', /required header X-Request-Id is missing/)

  // Answers under the base path without a route (unknown path, 405) must be error envelopes.
  assert.equal(contract.check(undefined, answer(404, notFound)), undefined)
  assert.match(contract.check(undefined, answer(404, { error: { code: 'NOT_FOUND' } })) ?? '', /must have required property/)
})
