// /health reports the installed version and uptime; /readiness gives `ready` on a healthy
// store, `not_ready` when a migration is missing or a table does not match its declaration,
// and `degraded` for clamped settings, an incomplete webhook posture or a missing worker,
// naming each check.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { sql } from 'kysely'
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
      assert.deepEqual(Object.keys(statuses(ok.checks)), ['database', 'migrations', 'schema', 'storage', 'credentials', 'rateLimitStore', 'webhookSettings', 'deliveryBacklog', 'workerHeartbeat', 'deadLetters', 'workflows', 'settings', 'incidents'])
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

for (const dialect of await testDialects()) {
  test(`${dialect}: readiness and diagnostics report a table that does not match its declaration`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      const token = await app.issueToken(['readiness:read', 'diagnostics:read'])
      const schemaCheck = async () => {
        const data = (await app.get('/gatehouse/v1/readiness', token)).json().data
        return { verdict: data.verdict as string, check: data.checks.find((c: Check) => c.name === 'schema') as Check }
      }
      assert.deepEqual((await schemaCheck()).check, { name: 'schema', status: 'ok', message: 'every resource table matches its declaration' })

      // A missing keyset index only slows lists: degraded.
      await sql`DROP INDEX products_created`.execute(app.database.db)
      const slow = await schemaCheck()
      assert.equal(slow.verdict, 'degraded')
      assert.equal(slow.check.status, 'warn')
      assert.deepEqual(slow.check.details?.differences, [{
        resourceType: 'products', kind: 'create-index', severity: 'warn',
        message: 'products: not yet done: create index products_created on products (created_at, id); run gatehouse migrate',
      }])

      // A missing unique index lets duplicates in, and a column of another type makes queries
      // wrong: not ready, each named.
      await sql`DROP INDEX variants_sku_unique`.execute(app.database.db)
      await sql`DROP INDEX donations_title_updated`.execute(app.database.db)
      await sql`ALTER TABLE donations DROP COLUMN title`.execute(app.database.db)
      await sql`ALTER TABLE donations ADD COLUMN title ${sql.raw(app.database.adapter.booleanType)}`.execute(app.database.db)
      const broken = await schemaCheck()
      assert.equal(broken.verdict, 'not_ready')
      assert.equal(broken.check.status, 'fail')
      const differences = broken.check.details?.differences as { resourceType: string; kind: string; severity: string; message: string }[]
      // Problems first (gatehouse migrate stops on them), then the steps it would take.
      assert.deepEqual(differences.map((d) => [d.resourceType, d.kind, d.severity]), [
        ['donations', 'retyped-column', 'fail'], ['products', 'create-index', 'warn'], ['variants', 'create-index', 'fail'], ['donations', 'create-index', 'warn'],
        // PostgreSQL also lost the title's trigram index with the column.
        ...(dialect === 'postgres' ? [['donations', 'create-index', 'warn']] : []),
      ])
      assert.match(differences[0].message, /^donations: column "title" \(title\) of table donations is \w+ in the database but declared text/)

      const bundle = (await app.get('/gatehouse/v1/diagnostics/bundle', token)).json().data
      assert.equal(bundle.checks.storage.status, 'error')
      assert.equal(bundle.checks.storage.schema.matchesDeclarations, false)
      assert.deepEqual(bundle.checks.storage.schema.differences, differences)
      assert.ok(bundle.checks.storage.problems.includes(`schema: ${differences[0].message}`))
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
