// Probes and DLQ replays land in the control plane's audit log (DESIGN §8), in the same
// transaction as what they record, naming who ran them: the admin for the admin API, the
// credential for the machine API, the operator for the CLI. Like credential lifecycle
// changes they are audited with the control plane's flag off too. Records never carry the
// webhook secret or the URL's path, and the chain still verifies.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, PG_URL, testDialects, type TestApp } from '../helpers/test-app.js'
import { listAudit, verifyAudit, type AuditRecord } from '../../src/control/audit-log.js'
import { runCli } from '../cli/helpers/cli.js'
import { startReceiver } from './helpers/receiver.js'
import { until } from '../helpers/until.js'

const ADMIN = 'admin-token-for-webhook-audit-tests'
const SECRET = 'whsec-never-in-the-audit-log'
const HOOK_PATH = '/private-hook-path-9f3c'
const auth = { authorization: `Bearer ${ADMIN}` }

const webhookAudit = async (app: TestApp): Promise<AuditRecord[]> =>
  (await listAudit(app.database.db, { category: 'webhook', limit: 200 })).items

/** PLUGIN_GATEHOUSE_DATABASE_URL for a CLI on the app's own database. */
const cliUrl = (app: TestApp) => app.database.schema
  ? `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${app.database.schema}`)}`
  : app.database.url

for (const dialect of await testDialects()) {
  test(`${dialect}: probes and replays are audited with their actor and outcome, without secrets, flag off`, async () => {
    let status = 500
    const receiver = await startReceiver(HOOK_PATH, (_r, res) => { res.writeHead(status).end() })
    const app = await buildTestApp({
      dialect, webhookWorker: { pollMs: 20, retryBaseMs: 20 },
      env: { PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: SECRET, PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS: '1', PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN },
    })
    try {
      assert.equal(app.services.settings.writesExperimental, false)
      const admin = (method: 'POST', url: string, body?: unknown) => app.app.inject({
        method, url: `/gatehouse/admin/v1${url}`, headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      })
      for (const slug of ['a', 'b', 'c']) await app.services.store.create('products', { type: 'mug', title: slug, slug })
      await until(async () => (await app.database.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'failed').execute()).length === 3, 'three dead letters')
      const [id1, id2, id3] = (await app.database.db.selectFrom('webhook_deliveries').select('id').orderBy('id').execute()).map((r) => Number(r.id))

      // Probes: failed, refused inside the cooldown, delivered.
      const failed = (await admin('POST', '/webhooks/probe')).json().data
      assert.equal(failed.status, 'failed')
      assert.equal((await admin('POST', '/webhooks/probe')).statusCode, 429)
      await app.database.db.updateTable('webhook_probe_cooldown').set({ last_probe_at: Date.now() - 301_000 }).execute()
      status = 200
      const delivered = (await admin('POST', '/webhooks/probe')).json().data
      assert.equal(delivered.status, 'delivered')

      // Replays: one by a machine credential, all by the admin, one by the CLI; an unknown id is not audited.
      const replayer = await app.issueToken(['webhooks:dlq:replay'])
      const credentialId = (await app.services.credentials.list()).find((c) => c.source === 'managed')?.id
      const one = await app.post('/gatehouse/v1/webhooks/dlq/replay', { id: id1 }, replayer)
      assert.equal(one.statusCode, 200)
      assert.equal((await app.post('/gatehouse/v1/webhooks/dlq/replay', { id: 999_999 }, replayer)).statusCode, 404)
      const allAnswer = await admin('POST', '/webhooks/dlq/replay', { mode: 'all' })
      const all = allAnswer.json().data
      assert.deepEqual(all, { replayed: 2, mode: 'all', ids: [id2, id3] })
      const cli = await runCli(['webhooks', 'dlq', 'replay', '--all', '--json'], { env: { PLUGIN_GATEHOUSE_DATABASE_URL: cliUrl(app) } })
      assert.equal(cli.code, 0, cli.stderr)

      const records = await webhookAudit(app)
      assert.deepEqual(records.map((r) => [r.action, r.outcome]), [
        ['probe', 'failure'], ['probe', 'denied'], ['probe', 'success'], ['replay', 'success'], ['replay', 'success'], ['replay', 'success'],
      ])
      const [pFailed, pRefused, pDelivered, rOne, rAll, rCli] = records
      for (const r of [pFailed, pRefused, pDelivered, rAll]) assert.deepEqual(r.actor, { type: 'admin', id: 'admin-token' })
      assert.deepEqual(pFailed.entity, { type: 'webhook_probe', id: failed.probeId })
      assert.deepEqual(pFailed.metadata, {
        result: 'failed', probeId: failed.probeId, statusCode: 500, error: 'HTTP 500', durationMs: failed.durationMs, targetHost: `http://127.0.0.1:${receiver.port}`,
      })
      assert.equal(pRefused.entity, null)
      assert.deepEqual(pRefused.metadata, { result: 'cooldown-refused' })
      assert.deepEqual(pDelivered.entity, { type: 'webhook_probe', id: delivered.probeId })
      assert.equal(pDelivered.metadata.result, 'delivered')
      assert.equal(pDelivered.metadata.statusCode, 200)

      assert.deepEqual(rOne.actor, { type: 'credential', id: credentialId })
      assert.deepEqual(rOne.entity, { type: 'webhook_dead_letter', id: String(id1) })
      assert.deepEqual(rOne.metadata, { mode: 'single', id: id1, replayed: 1, ids: [id1] })
      assert.equal(rAll.entity, null)
      assert.deepEqual(rAll.metadata, { mode: 'all', limit: 1000, replayed: 2, ids: [id2, id3] })
      // Each names the HTTP request that asked (a CLI run made none).
      assert.deepEqual([rOne.requestId, rAll.requestId, rCli.requestId], [one.json().requestId, allAnswer.json().requestId, null])
      assert.ok(pFailed.requestId?.startsWith('req_'))
      assert.equal(rCli.actor.type, 'cli')
      assert.ok(rCli.actor.id, 'names the operator')
      assert.equal(rCli.metadata.mode, 'all')

      const text = JSON.stringify(records)
      assert.ok(!text.includes(SECRET), 'no webhook secret in the audit log')
      assert.ok(!text.includes(HOOK_PATH), "no webhook URL path in the audit log")
      assert.equal((await verifyAudit(app.database.db)).ok, true)
      const verify = await runCli(['audit', 'verify', '--json'], { env: { PLUGIN_GATEHOUSE_DATABASE_URL: cliUrl(app) } })
      assert.equal(verify.code, 0, verify.stderr)
      assert.equal(JSON.parse(verify.stdout).ok, true)
    } finally {
      await app.close()
      await receiver.close()
    }
  })
}

test('with the control plane on, webhook records are listed under category=webhook', async () => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' } })
  try {
    const replayer = await app.issueToken(['webhooks:dlq:replay'])
    assert.deepEqual((await app.post('/gatehouse/v1/webhooks/dlq/replay', { mode: 'all', limit: 5 }, replayer)).json().data, { replayed: 0, mode: 'all', ids: [] })
    const res = await app.get('/gatehouse/v1/control/audit?category=webhook', await app.issueToken(['control:audit:read']))
    assert.equal(res.statusCode, 200, res.body)
    const [record] = res.json().data
    assert.equal(record.category, 'webhook')
    assert.equal(record.action, 'replay')
    assert.equal(record.actor.type, 'credential')
    assert.deepEqual(record.metadata, { mode: 'all', limit: 5, replayed: 0, ids: [] })
  } finally {
    await app.close()
  }
})
