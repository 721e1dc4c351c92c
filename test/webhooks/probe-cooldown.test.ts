// The probe: admin-only, a synthetic signed delivery through the live URL and secret
// (not through the queue), a five-minute cooldown that holds across two app instances on
// one database (each with its own connections), and a ledger of attempts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { buildTestApp, testDialects, type TestDatabase } from '../helpers/test-app.js'
import { openDatabase } from '../../src/store/database.js'
import { startReceiver, payloadOf } from './helpers/receiver.js'

const ADMIN = 'admin-token-for-probe-tests'
const PROBE = '/gatehouse/admin/v1/webhooks/probe'
const auth = { authorization: `Bearer ${ADMIN}` }

/** A second, independent connection (pool or file handle) to the same database. */
function secondConnection(db: TestDatabase): TestDatabase {
  const other = openDatabase(db.url, { schema: db.schema })
  return { ...other, url: db.url, schema: db.schema, destroy: () => other.close() }
}

for (const dialect of await testDialects()) {
  test(`${dialect}: probe sends a signed synthetic delivery; the cooldown holds across processes; the ledger counts`, async () => {
    let status = 200
    const receiver = await startReceiver('/hook', (_r, res) => { res.writeHead(status).end() })
    const env = { PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'probe-secret', PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN }
    const one = await buildTestApp({ dialect, env })
    const otherDb = secondConnection(one.database)
    const two = await buildTestApp({ dialect, env, database: otherDb })
    const inject = (app: typeof one, method: 'GET' | 'POST', headers: Record<string, string> = auth) => app.app.inject({ method, url: PROBE, headers })
    try {
      // Admin only: no token, or a machine credential, is a 401.
      assert.equal((await inject(one, 'POST', {})).statusCode, 401)
      const machine = await one.issueToken(['webhooks:dlq:read', 'webhooks:dlq:replay'])
      assert.equal((await inject(one, 'POST', { authorization: `Bearer ${machine}` })).statusCode, 401)
      assert.equal(receiver.received.length, 0)

      const first = await inject(one, 'POST')
      assert.equal(first.statusCode, 200)
      const probe = first.json().data
      assert.equal(probe.status, 'delivered')
      assert.equal(probe.statusCode, 200)
      assert.equal(probe.triggeredBy, 'admin-token')
      assert.equal(probe.targetHost, `http://127.0.0.1:${receiver.port}`)
      assert.equal(receiver.received.length, 1)
      const sent = receiver.received[0]
      const payload = payloadOf(sent)
      assert.deepEqual(payload, { id: probe.probeId, eventKind: 'probe', isProbe: true, probeId: probe.probeId, triggeredAt: probe.triggeredAt, triggeredBy: 'admin-token' })
      const ts = sent.headers['x-gatehouse-webhook-timestamp']
      assert.equal(sent.headers['x-gatehouse-webhook-signature'], 'sha256=' + createHmac('sha256', 'probe-secret').update(`${ts}.${sent.body}`).digest('hex'))
      assert.equal(Number((await one.database.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), 0,
        'a probe does not go through the queue')

      // The other instance is inside the same cooldown.
      const second = await inject(two, 'POST')
      assert.equal(second.statusCode, 429)
      assert.equal(second.json().error.code, 'RATE_LIMIT_EXCEEDED')
      const retryAfter = Number(second.headers['retry-after'])
      assert.ok(retryAfter > 290 && retryAfter <= 300, `Retry-After ${retryAfter}`)
      assert.match(second.json().error.message, /five minutes/)
      assert.equal(receiver.received.length, 1, 'no second probe was sent')

      // Cooldown over: two instances racing get exactly one probe between them.
      await one.database.db.updateTable('webhook_probe_cooldown').set({ last_probe_at: Date.now() - 301_000 }).execute()
      const raced = await Promise.all([inject(one, 'POST'), inject(two, 'POST')])
      assert.deepEqual(raced.map((r) => r.statusCode).sort(), [200, 429])
      assert.equal(receiver.received.length, 2)

      // A failing receiver: the probe reports it and the ledger counts it.
      status = 500
      await one.database.db.updateTable('webhook_probe_cooldown').set({ last_probe_at: Date.now() - 301_000 }).execute()
      const failed = (await inject(two, 'POST')).json().data
      assert.equal(failed.status, 'failed')
      assert.equal(failed.statusCode, 500)
      assert.equal(failed.error, 'HTTP 500')

      const ledger = (await inject(one, 'GET')).json().data
      assert.equal(ledger.cooldownSeconds, 300)
      assert.equal(ledger.delivered, 2)
      assert.equal(ledger.failed, 1)
      assert.ok(ledger.nextProbeAt !== null && Date.parse(ledger.nextProbeAt) > Date.now())
      assert.equal(ledger.lastFailureAt, failed.triggeredAt)
      assert.ok(ledger.lastSuccessAt !== null && Date.parse(ledger.lastSuccessAt) < Date.parse(failed.triggeredAt) + 1)
      assert.deepEqual(ledger.recent.map((r: { status: string }) => r.status), ['failed', 'delivered', 'delivered'], 'newest first')
      assert.deepEqual(ledger.recent[0].payload, failed.payload, 'payloads can be inspected')
      assert.equal(JSON.stringify(ledger).includes('probe-secret'), false)
    } finally {
      await two.close()
      await otherDb.destroy()
      await one.close()
      await receiver.close()
    }
  })
}

test('a probe without webhook settings is a 409 and does not start the cooldown', async () => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN } })
  try {
    const res = await app.app.inject({ method: 'POST', url: PROBE, headers: auth })
    assert.equal(res.statusCode, 409)
    assert.equal(res.json().error.code, 'CONFLICT')
    assert.match(res.json().error.message, /PLUGIN_GATEHOUSE_WEBHOOK_URL/)
    const row = await app.database.db.selectFrom('webhook_probe_cooldown').select('last_probe_at').executeTakeFirstOrThrow()
    assert.equal(Number(row.last_probe_at), 0)
  } finally {
    await app.close()
  }
})
