// Admin API tokens managed like credentials: minted once (value shown once), stored only as a
// SHA-256 digest, listed by hint, revoked for good with immediate effect, every change audited;
// they open the admin API and nothing else. The PLUGIN_GATEHOUSE_ADMIN_TOKEN setting still works.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { testDialects } from '../helpers/test-app.js'
import { listAudit } from '../../src/control/audit-log.js'
import { ADMIN_TOKEN, adminClient, adminTestApp, countRows } from './helpers/admin-client.js'
import { cliDatabase, runCli } from '../cli/helpers/cli.js'

const ops = { type: 'cli' as const, id: 'ops' }

for (const dialect of await testDialects()) {
  test(`${dialect}: a managed admin token opens the admin API until revoked, is stored as a digest and audited`, async (t) => {
    const app = await adminTestApp(dialect, { PLUGIN_GATEHOUSE_ADMIN_TOKEN: '' })
    t.after(() => app.close())
    const { adminToken, token } = await app.services.adminTokens.create('Deploy pipeline', ops)
    assert.match(token, /^gta_[A-Za-z0-9_-]{43}$/)
    assert.match(adminToken.id, /^adm_/)
    assert.deepEqual([adminToken.label, adminToken.status, adminToken.createdBy, adminToken.lastUsedAt], ['Deploy pipeline', 'active', 'cli:ops', null])
    assert.equal(adminToken.tokenHint, `gta_…${token.slice(-4)}`)

    // Only the digest is stored; no column holds the token.
    const rows = await app.database.db.selectFrom('admin_tokens').selectAll().execute()
    assert.equal(rows.length, 1)
    assert.equal(rows[0].token_digest, createHash('sha256').update(token).digest('hex'))
    assert.ok(!JSON.stringify(rows).includes(token))

    const admin = adminClient(app, token)
    const listed = await admin.get('/credentials')
    assert.equal(listed.statusCode, 200, listed.body)
    const [used] = await app.services.adminTokens.list()
    assert.ok(used.lastUsedAt !== null, 'last use is recorded')
    assert.ok(!JSON.stringify(await app.services.adminTokens.list()).includes(token), 'listings never carry the token')

    // It opens the admin API only: the machine API does not know it.
    assert.equal((await app.get('/gatehouse/v1/auth/whoami', token)).statusCode, 401)
    // A machine token does not open the admin API.
    const machine = await app.issueToken(['products:read'])
    assert.equal((await adminClient(app, machine).get('/credentials')).statusCode, 401)

    const revoked = await app.services.adminTokens.revoke(adminToken.id, ops)
    assert.equal(revoked.status, 'revoked')
    assert.ok(revoked.revokedAt)
    const after = await admin.get('/credentials')
    assert.equal(after.statusCode, 401)
    assert.match(after.json().error.message, /Invalid admin token/)
    await assert.rejects(app.services.adminTokens.revoke(adminToken.id, ops), { code: 'CONFLICT' })
    await assert.rejects(app.services.adminTokens.revoke('adm_nope', ops), { code: 'NOT_FOUND' })
    await assert.rejects(app.services.adminTokens.create(' ', ops), { code: 'INVALID_REQUEST' })

    const audit = (await listAudit(app.database.db, { entityType: 'admin_token', limit: 10 })).items
    assert.deepEqual(audit.map((a) => [a.category, a.action, a.actor.id, a.entity?.id]), [['credential', 'create', 'ops', adminToken.id], ['credential', 'revoke', 'ops', adminToken.id]])
    assert.ok(!JSON.stringify(audit).includes(token), 'the audit log never carries the token')
  })
}

test('the setting and managed tokens both open the admin API; a wrong token of either form does not', async (t) => {
  const app = await adminTestApp('sqlite')
  t.after(() => app.close())
  const { token } = await app.services.adminTokens.create('Second operator', ops)
  for (const good of [ADMIN_TOKEN, token]) assert.equal((await adminClient(app, good).get('/credentials')).statusCode, 200)
  for (const bad of [token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'), `gta_${'A'.repeat(43)}`, ADMIN_TOKEN + 'x']) {
    assert.equal((await adminClient(app, bad).get('/credentials')).statusCode, 401, bad)
  }
  assert.equal(await countRows(app.database.db, 'admin_tokens'), 1)
})

test('gatehouse admin token create, list --json and revoke: printed once, listed without it, refused after revoke', async (t) => {
  const target = await cliDatabase('sqlite')
  t.after(() => target.destroy())
  const env = { PLUGIN_GATEHOUSE_DATABASE_URL: target.url }
  const created = await runCli(['admin', 'token', 'create', '--label', 'CI', '--json'], { env })
  assert.equal(created.code, 0, created.stderr)
  const { adminToken, token } = JSON.parse(created.stdout)
  assert.match(token, /^gta_/)
  assert.equal(adminToken.label, 'CI')
  assert.match(adminToken.createdBy, /^cli:/)

  const listed = await runCli(['admin', 'token', 'list', '--json'], { env })
  assert.equal(listed.code, 0, listed.stderr)
  assert.ok(!listed.stdout.includes(token))
  assert.deepEqual(JSON.parse(listed.stdout).map((x: { id: string; status: string }) => [x.id, x.status]), [[adminToken.id, 'active']])
  const table = await runCli(['admin', 'token', 'list'], { env })
  assert.match(table.stdout, new RegExp(`^ID +LABEL +STATUS +CREATED +BY +LAST USED +TOKEN\\n${adminToken.id} +CI +active `))

  const revoked = await runCli(['admin', 'token', 'revoke', adminToken.id, '--json'], { env })
  assert.equal(revoked.code, 0, revoked.stderr)
  assert.equal(JSON.parse(revoked.stdout).status, 'revoked')
  const again = await runCli(['admin', 'token', 'revoke', adminToken.id], { env })
  assert.equal(again.code, 1)
  assert.equal(again.stderr, `gatehouse: Admin token ${adminToken.id} is already revoked\n`)
})
