// Credential lifecycle changes made through the admin API and the CLI land in the audit log
// with who made them, in the same transaction as the change; records never carry tokens.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runCli } from '../cli/helpers/cli.js'
import { verifyAudit } from '../../src/control/audit-log.js'
import { ADMIN_TOKEN, CONTROL, controlApp } from './helpers/control-app.js'

test('admin API and CLI credential lifecycle calls are audited with their actor, without tokens', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const adminCall = (method: 'POST' | 'DELETE', url: string, body?: unknown) => app.app.inject({
    method, url: `/gatehouse/admin/v1${url}`, ...(body ? { payload: JSON.stringify(body) } : {}),
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
  })
  const created = await adminCall('POST', '/credentials', { label: 'Sync bot', scopes: ['products:read'], boundaries: { productIds: [1] } })
  assert.equal(created.statusCode, 201, created.body)
  const { id, token } = created.json().data
  const rotated = await adminCall('POST', `/credentials/${id}/rotate`)
  const requestIds = [created.headers['x-request-id'], rotated.headers['x-request-id']]
  for (const step of ['pause', 'resume', 'revoke']) {
    const res = await adminCall('POST', `/credentials/${id}/${step}`)
    assert.equal(res.statusCode, 200)
    requestIds.push(res.headers['x-request-id'])
  }
  const deleted = await adminCall('DELETE', `/credentials/${id}`)
  assert.equal(deleted.statusCode, 204)
  requestIds.push(deleted.headers['x-request-id'])

  const cli = await runCli(['credentials', 'create', '--label', 'From CLI', '--scopes', 'orders:read', '--json'], { env: { PLUGIN_GATEHOUSE_DATABASE_URL: app.database.url } })
  assert.equal(cli.code, 0, cli.stderr)
  const cliId = JSON.parse(cli.stdout).credential.id

  const res = await app.get(`${CONTROL}/audit?category=credential&limit=200`, await app.token(['control:audit:read']))
  const records = res.json().data as { action: string; actor: { type: string; id: string }; requestId: string | null; entity: { id: string }; metadata: Record<string, unknown> }[]
  const forId = records.filter((r) => r.entity.id === id)
  assert.deepEqual(forId.map((r) => r.action), ['create', 'rotate', 'pause', 'resume', 'revoke', 'delete'])
  // Each names the HTTP request that made it, as the server log does.
  assert.deepEqual(forId.map((r) => r.requestId), requestIds)
  for (const r of forId) assert.deepEqual(r.actor, { type: 'admin', id: 'admin-token' })
  assert.deepEqual(forId[0].metadata, { label: 'Sync bot', scopes: ['products:read'], status: 'active', expiresAt: null, boundaries: { productIds: [1] } })
  assert.equal(forId[4].metadata.status, 'revoked')
  const fromCli = records.find((r) => r.entity.id === cliId)
  assert.equal(fromCli?.actor.type, 'cli')
  assert.equal(fromCli?.requestId, null, 'no HTTP request made it')
  assert.ok(fromCli?.actor.id, 'names the operator')
  // Tests issue tokens through the service directly: those changes say nobody is attributed.
  assert.ok(records.some((r) => r.actor.type === 'system' && r.actor.id === 'unattributed'))
  for (const secret of [token, rotated.json().data.token, JSON.parse(cli.stdout).token]) assert.ok(!res.body.includes(secret), 'no token in the audit log')
  assert.equal((await verifyAudit(app.database.db)).ok, true)
})
