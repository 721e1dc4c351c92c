// Every request re-checks the credential: unknown, expired, paused, revoked and
// outside-the-allowlist tokens are turned away; tokens are stored only as digests.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { digestToken } from '../../src/auth/tokens.js'

const whoami = '/gatehouse/v1/auth/whoami'

for (const dialect of await testDialects()) {
  test(`${dialect}: managed credentials: pause, resume, revoke, expiry and rotation take effect at once`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      const creds = app.services.credentials
      const { credential, token } = await creds.create({ label: 'sync worker', scopes: ['auth:read'] })
      assert.match(token, /^gth_[A-Za-z0-9_-]{43}$/)
      const ok = await app.get(whoami, token)
      assert.deepEqual(ok.json().data, { credentialId: credential.id, label: 'sync worker', scopes: ['auth:read'], source: 'managed' })
      // Stored as a digest only.
      const row = await app.services.database.db.selectFrom('credentials').selectAll().where('id', '=', credential.id).executeTakeFirstOrThrow()
      assert.equal(row.token_digest, digestToken(token))
      assert.ok(!JSON.stringify(row).includes(token))

      await creds.setStatus(credential.id, 'paused')
      assert.equal((await app.get(whoami, token)).json().error.message, 'Credential paused')
      await creds.setStatus(credential.id, 'active')
      assert.equal((await app.get(whoami, token)).statusCode, 200)
      const rotated = await creds.rotate(credential.id)
      assert.equal((await app.get(whoami, token)).statusCode, 401, 'old token stops working')
      assert.equal((await app.get(whoami, rotated.token)).statusCode, 200)
      await creds.setStatus(credential.id, 'revoked')
      const revoked = await app.get(whoami, rotated.token)
      assert.equal(revoked.statusCode, 401)
      assert.equal(revoked.json().error.code, 'UNAUTHORIZED')
      assert.equal(revoked.json().error.message, 'Credential revoked')

      const expiring = await creds.create({ label: 'short', scopes: ['auth:read'], expiresAt: new Date(Date.now() - 1000).toISOString() })
      assert.equal((await app.get(whoami, expiring.token)).json().error.message, 'Credential expired')
      assert.equal((await app.get(whoami, 'gth_' + 'x'.repeat(43))).json().error.message, 'Unknown token')
      assert.equal((await app.get(whoami, undefined, { authorization: 'Basic abc' })).statusCode, 401)
    } finally {
      await app.close()
    }
  })
}

test('IP allowlists (IPv4 and IPv6 CIDR) turn other addresses away with 403', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    const v4 = await app.services.credentials.create({ label: 'office', scopes: ['auth:read'], ipAllowlist: ['10.1.0.0/16'] })
    const v6 = await app.services.credentials.create({ label: 'v6', scopes: ['auth:read'], ipAllowlist: ['2001:db8::/32', '127.0.0.1'] })
    const call = (token: string, remoteAddress: string) =>
      app.app.inject({ url: whoami, headers: { authorization: `Bearer ${token}` }, remoteAddress })
    assert.equal((await call(v4.token, '10.1.2.3')).statusCode, 200)
    assert.equal((await call(v4.token, '::ffff:10.1.200.1')).statusCode, 200)
    const denied = await call(v4.token, '10.2.0.1')
    assert.equal(denied.statusCode, 403)
    // The message names the address the server saw, so a CLI or client printing it shows what to allow.
    assert.equal(denied.json().error.message, 'Client address 10.2.0.1 is not in this credential\'s IP allowlist')
    assert.equal((await call(v6.token, '2001:db8:1::5')).statusCode, 200)
    assert.equal((await call(v6.token, '127.0.0.1')).statusCode, 200)
    assert.equal((await call(v6.token, '2001:db9::1')).statusCode, 403)
    await assert.rejects(app.services.credentials.create({ label: 'bad', scopes: ['auth:read'], ipAllowlist: ['10.0.0.0/33'] }), /Invalid parameter: ipAllowlist/)
    await assert.rejects(app.services.credentials.create({ label: 'bad', scopes: ['auth:everything'] }), /Invalid parameter: scopes/)
  } finally {
    await app.close()
  }
})

test('configured credentials and the legacy token: scopes, expiry and allowlist from settings', async () => {
  const app = await buildTestApp({
    dialect: 'sqlite',
    env: {
      PLUGIN_GATEHOUSE_API_CREDENTIALS: JSON.stringify([
        { id: 'erp', label: 'ERP', token: 'erp-secret-token', scopes: ['auth:read', 'products:read'] },
        { id: 'old', token: 'old-token', scopes: ['auth:read'], expiresAt: '2020-01-01T00:00:00Z' },
        { id: 'lan', token: 'lan-token', scopes: ['auth:read'], ipAllowlist: ['192.168.0.0/24'] },
      ]),
      PLUGIN_GATEHOUSE_API_TOKEN: 'legacy-token',
      PLUGIN_GATEHOUSE_TOKEN_SCOPES: 'auth:read,orders:read',
    },
  })
  try {
    assert.deepEqual((await app.get(whoami, 'erp-secret-token')).json().data, { credentialId: 'erp', label: 'ERP', scopes: ['auth:read', 'products:read'], source: 'configured' })
    assert.equal((await app.get('/gatehouse/v1/orders', 'erp-secret-token')).statusCode, 403)
    assert.equal((await app.get(whoami, 'old-token')).statusCode, 401)
    assert.equal((await app.get(whoami, 'lan-token')).statusCode, 403)
    const legacy = (await app.get(whoami, 'legacy-token')).json().data
    assert.deepEqual(legacy, { credentialId: 'default', label: 'Legacy default token', scopes: ['auth:read', 'orders:read'], source: 'legacy' })
    // Listings never carry tokens.
    const listed = JSON.stringify(await app.services.credentials.list())
    for (const secret of ['erp-secret-token', 'old-token', 'lan-token', 'legacy-token']) assert.ok(!listed.includes(secret))
  } finally {
    await app.close()
  }
})
