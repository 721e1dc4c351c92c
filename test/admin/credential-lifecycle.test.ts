// Credential lifecycle through the admin API, checked against the machine API: a new
// token works once shown and is never shown again; rotation, pause, revoke, expiry, IP
// allowlists and deletion each take effect on the next request.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { testDialects, type TestApp } from '../helpers/test-app.js'
import { adminClient, adminTestApp, dataOf } from './helpers/admin-client.js'

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

async function whoami(app: TestApp, token: string, remoteAddress = '127.0.0.1') {
  const res = await app.app.inject({ method: 'GET', url: '/gatehouse/v1/auth/whoami', remoteAddress, headers: { authorization: `Bearer ${token}` } })
  return { statusCode: res.statusCode, body: res.json() }
}

for (const dialect of await testDialects()) {
  test(`${dialect}: create shows the token once; it works; listings never show it or its digest`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const admin = adminClient(app)
    const before = Date.now()
    const created = dataOf(await admin.post('/credentials', {
      label: 'Catalog sync', scopes: ['auth:read', 'products:read', 'variants:read'], expiresIn: '30d',
      ipAllowlist: ['127.0.0.0/8', '::1/128'], webhookInterests: [{ resourceType: 'product', actions: ['created', 'updated'] }],
      boundaries: { productIds: [1, 2] },
    }), 201)
    assert.match(created.token, /^gth_[A-Za-z0-9_-]{43}$/)
    assert.match(created.id, /^cred_/)
    assert.equal(created.label, 'Catalog sync')
    assert.deepEqual(created.scopes, ['auth:read', 'products:read', 'variants:read'])
    assert.equal(created.status, 'active')
    assert.equal(created.source, 'managed')
    assert.deepEqual(created.ipAllowlist, ['127.0.0.0/8', '::1/128'])
    assert.deepEqual(created.webhookInterests, [{ resourceType: 'product', actions: ['created', 'updated'] }])
    assert.deepEqual(created.boundaries, { productIds: [1, 2] })
    const expires = Date.parse(created.expiresAt)
    assert.ok(Math.abs(expires - (before + 30 * 86_400_000)) < 60_000, `expiresAt ${created.expiresAt} is 30 days out`)
    assert.equal(created.tokenHint, `gth_…${created.token.slice(-4)}`)

    const me = await whoami(app, created.token)
    assert.equal(me.statusCode, 200)
    assert.deepEqual(me.body.data, { credentialId: created.id, label: 'Catalog sync', scopes: ['auth:read', 'products:read', 'variants:read'], source: 'managed' })

    const list = await admin.get('/credentials')
    const listed = dataOf(list).find((c: { id: string }) => c.id === created.id)
    assert.equal(listed.label, 'Catalog sync')
    const shown = await admin.get(`/credentials/${created.id}`)
    const { token, ...withoutToken } = created
    assert.deepEqual(dataOf(shown), { ...withoutToken, lastUsedAt: dataOf(shown).lastUsedAt, firstUsedAt: dataOf(shown).firstUsedAt })
    for (const res of [list, shown]) {
      assert.ok(!res.body.includes(token), 'token not shown again')
      assert.ok(!res.body.includes(token.slice(4, 20)), 'no part of the token body')
      assert.ok(!res.body.includes(sha256(token)), 'digest not shown')
      assert.ok(!/digest/i.test(res.body))
    }
    // Scopes can be changed; the next request sees them.
    const patched = dataOf(await admin.patch(`/credentials/${created.id}`, { label: 'Catalog sync v2', scopes: ['auth:read'] }))
    assert.equal(patched.label, 'Catalog sync v2')
    assert.deepEqual((await whoami(app, token)).body.data.scopes, ['auth:read'])
  })

  test(`${dialect}: rotate, pause, resume, revoke, delete take effect on the next request`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const admin = adminClient(app)
    const created = dataOf(await admin.post('/credentials', { label: 'Agent', scopes: ['auth:read'] }), 201)
    const id = created.id
    assert.equal(created.expiresAt, null)
    assert.equal((await whoami(app, created.token)).statusCode, 200)

    const rotated = dataOf(await admin.post(`/credentials/${id}/rotate`))
    assert.notEqual(rotated.token, created.token)
    assert.equal(rotated.id, id)
    assert.ok(rotated.rotatedAt)
    const old = await whoami(app, created.token)
    assert.equal(old.statusCode, 401)
    assert.equal(old.body.error.code, 'UNAUTHORIZED')
    assert.equal((await whoami(app, rotated.token)).statusCode, 200)

    assert.equal(dataOf(await admin.post(`/credentials/${id}/pause`)).status, 'paused')
    const paused = await whoami(app, rotated.token)
    assert.equal(paused.statusCode, 401)
    assert.match(paused.body.error.message, /paused/)
    assert.equal(dataOf(await admin.post(`/credentials/${id}/resume`)).status, 'active')
    assert.equal((await whoami(app, rotated.token)).statusCode, 200)

    assert.equal(dataOf(await admin.post(`/credentials/${id}/revoke`)).status, 'revoked')
    const revoked = await whoami(app, rotated.token)
    assert.equal(revoked.statusCode, 401)
    assert.match(revoked.body.error.message, /revoked/)
    // Revocation is final.
    for (const [action, done] of [['resume', 'resumed'], ['rotate', 'rotated'], ['pause', 'paused']]) {
      const res = await admin.post(`/credentials/${id}/${action}`)
      assert.equal(res.statusCode, 409, `${action} after revoke`)
      assert.equal(res.json().error.code, 'CONFLICT')
      assert.equal(res.json().error.message, `A revoked credential cannot be ${done}`)
    }
    assert.equal((await whoami(app, rotated.token)).statusCode, 401)

    const del = await admin.del(`/credentials/${id}`)
    assert.equal(del.statusCode, 204)
    assert.equal((await admin.get(`/credentials/${id}`)).statusCode, 404)
    assert.equal((await admin.post(`/credentials/${id}/rotate`)).statusCode, 404)
    assert.ok(!dataOf(await admin.get('/credentials')).some((c: { id: string }) => c.id === id))
  })

  test(`${dialect}: expiry in the past is 401; an IP allowlist that excludes the client is 403`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const admin = adminClient(app)
    const expired = dataOf(await admin.post('/credentials', { label: 'Old', scopes: ['auth:read'], expiresAt: '2020-01-01T00:00:00.000Z' }), 201)
    const res = await whoami(app, expired.token)
    assert.equal(res.statusCode, 401)
    assert.match(res.body.error.message, /expired/)
    // Moving the expiry forward brings it back; clearing it too; moving it back expires it again.
    dataOf(await admin.patch(`/credentials/${expired.id}`, { expiresIn: '1h' }))
    assert.equal((await whoami(app, expired.token)).statusCode, 200)
    assert.equal(dataOf(await admin.patch(`/credentials/${expired.id}`, { expiresAt: null })).expiresAt, null)
    assert.equal((await whoami(app, expired.token)).statusCode, 200)
    dataOf(await admin.patch(`/credentials/${expired.id}`, { expiresAt: new Date(Date.now() - 1000).toISOString() }))
    assert.equal((await whoami(app, expired.token)).statusCode, 401)

    const office = dataOf(await admin.post('/credentials', { label: 'Office only', scopes: ['auth:read'], ipAllowlist: ['203.0.113.0/24'] }), 201)
    const outside = await whoami(app, office.token, '198.51.100.7')
    assert.equal(outside.statusCode, 403)
    assert.equal(outside.body.error.code, 'FORBIDDEN')
    assert.match(outside.body.error.message, /address/)
    assert.equal((await whoami(app, office.token, '203.0.113.9')).statusCode, 200)
    assert.equal((await whoami(app, office.token, '::ffff:203.0.113.10')).statusCode, 200)
    // Widening the allowlist lets the other address in.
    dataOf(await admin.patch(`/credentials/${office.id}`, { ipAllowlist: ['203.0.113.0/24', '198.51.100.0/24'] }))
    assert.equal((await whoami(app, office.token, '198.51.100.7')).statusCode, 200)
  })

  test(`${dialect}: invalid credential input is 400 naming each field, and nothing is created`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const admin = adminClient(app)
    const bad = async (body: unknown, params: string[]) => {
      const res = await admin.post('/credentials', body)
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(res.json().error.code, 'INVALID_REQUEST')
      assert.deepEqual([...new Set(res.json().error.details.map((d: { param: string }) => d.param))].sort(), params.sort(), res.body)
    }
    await bad({}, ['label', 'scopes'])
    await bad({ label: 'x', scopes: [] }, ['scopes'])
    await bad({ label: 'x', scopes: ['products:write'] }, ['scopes'])
    await bad({ label: 'x', scopes: ['auth:read'], ipAllowlist: ['10.0.0.0/33'] }, ['ipAllowlist'])
    await bad({ label: 'x', scopes: ['auth:read'], expiresIn: 'soon' }, ['expiresIn'])
    await bad({ label: 'x', scopes: ['auth:read'], expiresAt: 'tomorrow' }, ['expiresAt'])
    await bad({ label: 'x', scopes: ['auth:read'], expiresIn: '1d', expiresAt: '2030-01-01T00:00:00Z' }, ['expiresIn'])
    await bad({ label: 'x', scopes: ['auth:read'], webhookInterests: [{ resourceType: 'user', actions: ['created'] }] }, ['webhookInterests.0.resourceType'])
    await bad({ label: 'x', scopes: ['auth:read'], boundaries: { sites: ['a'] } }, ['boundaries.sites'])
    await bad({ label: 'x', scopes: ['auth:read'], token: 'gth_my_own_choice' }, ['token'])
    assert.deepEqual(dataOf(await admin.get('/credentials')), [])
    const patch = await admin.patch('/credentials/cred_nope', { label: 'y' })
    assert.equal(patch.statusCode, 404)
  })
}

test('configured credentials are listed but cannot be changed through the admin API', async (t) => {
  const app = await adminTestApp('sqlite', {
    PLUGIN_GATEHOUSE_API_CREDENTIALS: JSON.stringify([{ id: 'erp', label: 'ERP', token: 'gth_configured_erp_token_value_0123456789', scopes: ['auth:read'] }]),
  })
  t.after(() => app.close())
  const admin = adminClient(app)
  const list = await admin.get('/credentials')
  assert.deepEqual(dataOf(list).map((c: { id: string; source: string }) => [c.id, c.source]), [['erp', 'configured']])
  assert.ok(!list.body.includes('gth_configured_erp_token_value_0123456789'))
  for (const res of [await admin.post('/credentials/erp/rotate'), await admin.post('/credentials/erp/revoke'), await admin.del('/credentials/erp')]) {
    assert.equal(res.statusCode, 409, res.body)
    assert.match(res.json().error.message, /configuration/)
  }
})
