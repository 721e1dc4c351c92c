// /consumers/lag and /consumers/checkpoint answer like their successors, announce their
// deprecation with Deprecation and Link headers, and accept the deprecated consumers:* scopes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'

test('deprecated /consumers aliases behave like /sync-state and point at it', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    const { credential, token } = await app.services.credentials.create({ label: 'old client', scopes: ['consumers:read', 'consumers:write'] })

    const write = await app.post('/gatehouse/v1/consumers/checkpoint', { resourceType: 'orders', metadata: { v: 1 } }, token)
    assert.equal(write.statusCode, 200, write.body)
    assert.equal(write.json().data.integrationKey, credential.id)
    assert.equal(write.headers.deprecation, 'true')
    assert.equal(write.headers.link, '</gatehouse/v1/sync-state/checkpoint>; rel="successor-version"')

    const viaAlias = await app.get('/gatehouse/v1/consumers/lag', token)
    const viaNew = await app.get('/gatehouse/v1/sync-state/lag', token)
    assert.equal(viaAlias.statusCode, 200)
    assert.equal(viaNew.statusCode, 200, 'consumers:read grants syncstate:read')
    assert.deepEqual(viaAlias.json().data, viaNew.json().data)
    assert.equal(viaAlias.json().data.checkpoints[0].resourceType, 'orders')
    assert.equal(viaAlias.headers.deprecation, 'true')
    assert.equal(viaAlias.headers.link, '</gatehouse/v1/sync-state/lag>; rel="successor-version"')
    assert.equal(viaNew.headers.deprecation, undefined)
    assert.equal(viaNew.headers.link, undefined)

    // The alias keeps the same rules: another key is refused, the answer still says it is deprecated.
    const denied = await app.post('/gatehouse/v1/consumers/checkpoint', { integrationKey: 'someone', resourceType: 'orders' }, token)
    assert.equal(denied.statusCode, 403)
    assert.equal(denied.json().error.code, 'FORBIDDEN')
    assert.equal(denied.headers.deprecation, 'true')

    // consumers:read alone does not grant writes.
    const readOnly = await app.issueToken(['consumers:read'])
    const noWrite = await app.post('/gatehouse/v1/consumers/checkpoint', { resourceType: 'orders' }, readOnly)
    assert.equal(noWrite.statusCode, 403)
    assert.equal(noWrite.json().error.message, 'Missing required scope: syncstate:write')
  } finally {
    await app.close()
  }
})

test('the aliases announce their end with a Sunset HTTP date, on answers and errors, and the contract says so', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['syncstate:read', 'syncstate:write', 'openapi:read'])
  const ok = await app.get('/gatehouse/v1/consumers/lag', token)
  assert.equal(ok.statusCode, 200)
  assert.equal(ok.headers.sunset, 'Wed, 30 Jun 2027 00:00:00 GMT')
  // An IMF-fixdate (RFC 9110), the form RFC 8594 asks for, and after the deprecation.
  assert.match(String(ok.headers.sunset), /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/)
  assert.ok(Date.parse(String(ok.headers.sunset)) > Date.parse('2026-01-01'))
  const refused = await app.post('/gatehouse/v1/consumers/checkpoint', { integrationKey: 'someone', resourceType: 'orders' }, token)
  assert.equal(refused.statusCode, 403)
  assert.equal(refused.headers.sunset, ok.headers.sunset)
  assert.equal((await app.get('/gatehouse/v1/sync-state/lag', token)).headers.sunset, undefined)

  const doc = (await app.get('/gatehouse/v1/openapi.json', token)).json()
  const op = doc.paths['/consumers/lag'].get
  assert.deepEqual(op.responses['200'].headers.Sunset, { $ref: '#/components/headers/Sunset' })
  assert.equal(op['x-gatehouse-sunset'], '2027-06-30T00:00:00Z')
  assert.equal(doc.paths['/sync-state/lag'].get.responses['200'].headers.Sunset, undefined)
})
