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
