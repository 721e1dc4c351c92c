// /diagnostics/bundle has the spec's summary and checks (plus webhooks and storage) and a
// posture snapshot, with no secret in it; `gatehouse diagnostics` prints the same bundle.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { buildTestApp } from '../helpers/test-app.js'
import { ROOT, cliArgs } from '../helpers/cli-command.js'

const SECRETS = {
  PLUGIN_GATEHOUSE_WEBHOOK_URL: 'https://hooks.example.test/receiver/private-path?key=query-secret-value',
  PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'webhook-signing-secret-value',
  PLUGIN_GATEHOUSE_API_TOKEN: 'legacy-default-token-value',
  PLUGIN_GATEHOUSE_ADMIN_TOKEN: 'admin-bootstrap-token-value',
}

test('diagnostics bundle: summary, five checks with status, posture, and nothing secret', async () => {
  const app = await buildTestApp({ dialect: 'sqlite', env: SECRETS })
  try {
    await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
    const { credential, token } = await app.services.credentials.create({ label: 'support', scopes: ['diagnostics:read'] })
    const res = await app.get('/gatehouse/v1/diagnostics/bundle', token)
    assert.equal(res.statusCode, 200, res.body)
    const b = res.json().data

    assert.deepEqual(Object.keys(b.checks).sort(), ['auth', 'readiness', 'smoke', 'storage', 'webhooks'])
    for (const [name, c] of Object.entries(b.checks) as [string, { status: string; problems: string[] }][]) {
      assert.ok(['ok', 'warn', 'error'].includes(c.status), `${name} has a status`)
      assert.equal(c.status === 'ok', c.problems.length === 0, `${name}: status agrees with its problems`)
    }
    assert.equal(b.checks.smoke.status, 'ok')
    assert.deepEqual(b.checks.smoke.steps.map((s: { status: string }) => s.status), ['ok', 'ok', 'ok', 'ok', 'ok'])
    assert.equal(b.checks.storage.status, 'ok')
    assert.equal(b.checks.storage.dialect, 'sqlite')
    assert.deepEqual(b.checks.storage.migrations.pending, [])
    assert.equal(b.checks.storage.changeLog.entries, 1)
    assert.equal(b.checks.auth.caller.credentialId, credential.id)
    assert.equal(b.checks.auth.credentials.total, 2, 'the managed one and the legacy token')
    // Delivery is configured and no worker runs in tests: readiness degraded, webhooks warn.
    assert.equal(b.checks.readiness.verdict, 'degraded')
    assert.equal(b.checks.webhooks.status, 'warn')
    assert.deepEqual(b.checks.webhooks.receiver, { scheme: 'https', host: 'hooks.example.test' })
    assert.equal(b.checks.webhooks.secretConfigured, true)
    assert.ok(b.checks.auth.problems.some((p: string) => /legacy default token/.test(p)))

    // Summary counts each problem once and takes the worst status.
    const problems = new Set(Object.values(b.checks).flatMap((c) => (c as { problems: string[] }).problems))
    assert.equal(b.summary.warningCount + b.summary.errorCount, problems.size)
    assert.equal(b.summary.errorCount, 0)
    assert.equal(b.summary.status, 'warn')
    assert.equal(b.posture.legacyTokenConfigured, true)
    assert.equal(b.posture.adminTokenConfigured, true)
    assert.equal(b.posture.rateLimitPerMinute, 0)

    for (const [name, value] of Object.entries(SECRETS)) {
      if (name === 'PLUGIN_GATEHOUSE_WEBHOOK_URL') {
        for (const part of ['private-path', 'query-secret-value']) assert.ok(!res.body.includes(part), `receiver ${part} is redacted`)
      } else {
        assert.ok(!res.body.includes(value), `${name} is not in the bundle`)
      }
    }
    assert.ok(!res.body.includes(token))
    assert.ok(!res.body.includes(app.database.url.slice('sqlite:'.length)), 'no database location')
  } finally {
    await app.close()
  }
})

test('gatehouse diagnostics prints the bundle as a table and as JSON', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    await app.issueToken(['products:read'])
    const env = { ...process.env, PLUGIN_GATEHOUSE_DATABASE_URL: app.database.url, PLUGIN_GATEHOUSE_LOG_LEVEL: 'silent', PLUGIN_GATEHOUSE_WEBHOOK_SECRET: '', PLUGIN_GATEHOUSE_WEBHOOK_URL: '' }
    const run = (args: string[]) => spawnSync(process.execPath, cliArgs(['diagnostics', ...args]), { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 })
    const json = run(['--json'])
    assert.equal(json.status, 0, json.stderr)
    const b = JSON.parse(json.stdout)
    assert.deepEqual(Object.keys(b.checks).sort(), ['auth', 'readiness', 'smoke', 'storage', 'webhooks'])
    assert.equal(b.checks.smoke.status, 'ok')
    assert.equal(b.checks.auth.caller, null)
    assert.equal(b.checks.auth.credentials.total, 1)
    assert.equal(typeof b.summary.warningCount, 'number')

    const table = run([])
    assert.equal(table.status, 0, table.stderr)
    assert.match(table.stdout, /^Gatehouse \S+ diagnostics at .*: (ok|warn|error) \(\d+ warning\(s\), \d+ error\(s\)\)$/m)
    assert.match(table.stdout, /^CHECK\s+STATUS\s+PROBLEMS$/m)
    for (const name of ['auth', 'readiness', 'smoke', 'webhooks', 'storage']) assert.match(table.stdout, new RegExp(`^${name}\\s+(ok|warn|error)`, 'm'))
  } finally {
    await app.close()
  }
})
