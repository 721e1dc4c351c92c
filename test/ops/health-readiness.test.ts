// /health reports the installed version and uptime; /readiness gives `ready` on a healthy
// store, `not_ready` when a migration is missing, and `degraded` for clamped settings, an
// incomplete webhook posture or a missing worker, naming each check.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { buildTestApp, testDialects } from '../helpers/test-app.js'

const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version

interface Check { name: string; status: string; message: string; details?: Record<string, unknown> }
const statuses = (checks: Check[]) => Object.fromEntries(checks.map((c) => [c.name, c.status]))

test('health: status, version from package.json and uptime; guarded by health:read', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    const res = await app.get('/gatehouse/v1/health', await app.issueToken(['health:read']))
    assert.equal(res.statusCode, 200)
    const d = res.json().data
    assert.equal(d.status, 'ok')
    assert.equal(d.version, version)
    assert.ok(d.uptimeSeconds >= 0 && d.uptimeSeconds < 60)
    assert.equal(d.startedAt, new Date(app.services.startedAt).toISOString())
    assert.equal((await app.get('/gatehouse/v1/health')).statusCode, 401)
    const denied = await app.get('/gatehouse/v1/health', await app.issueToken(['readiness:read']))
    assert.equal(denied.statusCode, 403)
    assert.equal(denied.json().error.message, 'Missing required scope: health:read')
  } finally {
    await app.close()
  }
})

for (const dialect of await testDialects()) {
  test(`${dialect}: readiness is ready on a healthy store and not_ready with a migration missing`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      const token = await app.issueToken(['readiness:read'])
      const ok = (await app.get('/gatehouse/v1/readiness', token)).json().data
      assert.equal(ok.verdict, 'ready', JSON.stringify(ok.checks))
      assert.deepEqual(Object.keys(statuses(ok.checks)), ['database', 'migrations', 'credentials', 'webhookSettings', 'deliveryBacklog', 'workerHeartbeat', 'deadLetters', 'settings', 'incidents'])
      assert.ok(ok.checks.every((c: Check) => c.status === 'ok'))
      assert.equal(ok.checks.find((c: Check) => c.name === 'credentials').details.count, 1)

      await app.database.db.deleteFrom('migrations').where('name', '=', '004-sync-state').execute()
      const bad = (await app.get('/gatehouse/v1/readiness', token)).json().data
      assert.equal(bad.verdict, 'not_ready')
      const migrations = bad.checks.find((c: Check) => c.name === 'migrations') as Check
      assert.equal(migrations.status, 'fail')
      assert.deepEqual(migrations.details?.pending, ['004-sync-state'])
    } finally {
      await app.close()
    }
  })
}

test('readiness is degraded by clamped settings, a short webhook secret and no worker heartbeat', async () => {
  const app = await buildTestApp({
    dialect: 'sqlite',
    env: {
      PLUGIN_GATEHOUSE_WEBHOOK_URL: 'http://127.0.0.1:9/hooks',
      PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'short',
      PLUGIN_GATEHOUSE_WEBHOOK_TIMEOUT_SECONDS: '120',
    },
  })
  try {
    const d = (await app.get('/gatehouse/v1/readiness', await app.issueToken(['readiness:read']))).json().data
    assert.equal(d.verdict, 'degraded')
    const s = statuses(d.checks)
    assert.equal(s.settings, 'warn')
    assert.equal(s.webhookSettings, 'warn')
    assert.equal(s.workerHeartbeat, 'warn', 'delivery is configured but no worker runs (tests start none)')
    assert.equal(s.database, 'ok')
    const settings = d.checks.find((c: Check) => c.name === 'settings') as Check
    assert.match(String((settings.details?.warnings as string[])[0]), /PLUGIN_GATEHOUSE_WEBHOOK_TIMEOUT_SECONDS=120 is above the maximum 60/)
    assert.ok(!JSON.stringify(d).includes('short"'), 'the secret itself is not shown')
  } finally {
    await app.close()
  }
})
