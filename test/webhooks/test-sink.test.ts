// The dev-only test sink: it exists only with PLUGIN_GATEHOUSE_DEV_MODE and
// PLUGIN_GATEHOUSE_WEBHOOK_TEST_SINK both on (404 otherwise, also its admin endpoints), a
// webhook URL pointing at it is refused at start-up outside that mode, and in it the sink
// verifies each capture's signatures, counts valid ones, shows routing mode and matched
// credentials, and offers send-test and clear.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { buildTestApp, testDialects, testSettings } from '../helpers/test-app.js'
import { freePort } from '../helpers/free-port.js'
import { SettingsError } from '../../src/kernel/settings.js'

const ADMIN = 'sink-admin-token'
const SINK = '/gatehouse/dev/webhook-test-sink'
const auth = { authorization: `Bearer ${ADMIN}` }

test('the sink and its admin endpoints are 404 unless dev mode and the sink flag are both on', async () => {
  for (const env of [{}, { PLUGIN_GATEHOUSE_DEV_MODE: 'true' }] as Record<string, string>[]) {
    const app = await buildTestApp({ dialect: 'sqlite', env: { ...env, PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN } })
    try {
      const post = await app.app.inject({ method: 'POST', url: SINK, headers: { 'content-type': 'application/json' }, payload: '{}' })
      assert.equal(post.statusCode, 404, JSON.stringify(env))
      assert.equal(post.json().error.code, 'NOT_FOUND')
      for (const [method, url] of [['GET', '/webhooks/sink'], ['POST', '/webhooks/sink/send-test'], ['POST', '/webhooks/sink/clear']] as const) {
        const res = await app.app.inject({ method, url: `/gatehouse/admin/v1${url}`, headers: auth })
        assert.equal(res.statusCode, 404, `${method} ${url} ${JSON.stringify(env)}`)
      }
      assert.equal(Number((await app.database.db.selectFrom('webhook_sink_captures').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), 0)
    } finally {
      await app.close()
    }
  }
})

test('a webhook URL pointing at the sink is refused at start-up outside dev mode with the sink', async () => {
  const url = `http://127.0.0.1:8080${SINK}`
  for (const env of [
    { PLUGIN_GATEHOUSE_WEBHOOK_URL: url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 's' },
    { PLUGIN_GATEHOUSE_WEBHOOK_URL: url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 's', PLUGIN_GATEHOUSE_DEV_MODE: 'true' },
  ] as Record<string, string>[]) {
    assert.throws(() => testSettings(env), (err: unknown) => err instanceof SettingsError && /PLUGIN_GATEHOUSE_WEBHOOK_URL/.test(err.message) && /test sink/.test(err.message))
    await assert.rejects(buildTestApp({ dialect: 'sqlite', env }), SettingsError)
  }
  assert.throws(() => testSettings({ PLUGIN_GATEHOUSE_WEBHOOK_TEST_SINK: 'true' }), /requires PLUGIN_GATEHOUSE_DEV_MODE=true/)
  // In dev mode with the sink on, the same URL is accepted.
  assert.equal(testSettings({ PLUGIN_GATEHOUSE_WEBHOOK_URL: url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 's', PLUGIN_GATEHOUSE_DEV_MODE: 'true', PLUGIN_GATEHOUSE_WEBHOOK_TEST_SINK: 'true' }).webhookUrl, url)
})

for (const dialect of await testDialects()) {
  test(`${dialect}: in dev mode the sink captures real deliveries, verifies them and shows routing`, async () => {
    const port = await freePort()
    const secret = 'sink-secret'
    const app = await buildTestApp({
      dialect, webhookWorker: { pollMs: 20 },
      env: {
        PLUGIN_GATEHOUSE_PORT: String(port), PLUGIN_GATEHOUSE_DEV_MODE: 'true', PLUGIN_GATEHOUSE_WEBHOOK_TEST_SINK: 'true',
        PLUGIN_GATEHOUSE_WEBHOOK_URL: `http://127.0.0.1:${port}${SINK}`, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: secret, PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN,
      },
    })
    await app.app.listen({ port, host: '127.0.0.1' })
    const view = async () => (await app.app.inject({ method: 'GET', url: '/gatehouse/admin/v1/webhooks/sink', headers: auth })).json().data
    const waitCaptured = async (n: number) => {
      const until = Date.now() + 10_000
      while ((await view()).capturedCount < n) {
        if (Date.now() > until) throw new Error(`sink did not capture ${n}`)
        await new Promise((r) => setTimeout(r, 25))
      }
    }
    try {
      assert.equal((await app.app.inject({ method: 'GET', url: '/gatehouse/admin/v1/webhooks/sink' })).statusCode, 401, 'the view is admin-only')

      // A real delivery of a content change (firehose).
      const product = await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
      await waitCaptured(1)
      let v = await view()
      assert.equal(v.url, `http://127.0.0.1:${port}${SINK}`)
      assert.equal(v.capturedCount, 1)
      assert.equal(v.validCount, 1)
      assert.equal(v.routingMode, 'firehose')
      assert.deepEqual(v.matchedCredentials, [])
      assert.equal(v.currentRoutingMode, 'firehose')
      assert.ok(Date.parse(v.lastCapturedAt) <= Date.now())
      const c = v.captures[0]
      assert.equal(c.signatureValid, true)
      assert.equal(c.standardSignatureValid, true)
      assert.equal(c.problem, null)
      assert.equal(c.kind, 'event')
      assert.equal(JSON.parse(c.payloadPreview).resourceId, product.id)
      assert.match(c.headers['x-gatehouse-webhook-signature'], /^sha256=/)

      // Targeted: the capture names the credential that matched.
      const cred = await app.services.credentials.create({ label: 'Catalog sync', scopes: ['products:read'], webhookInterests: [{ resourceType: 'product', actions: ['updated'] }] })
      await app.services.store.update('products', product.id as number, { title: 'Mug 2' })
      await waitCaptured(2)
      v = await view()
      assert.equal(v.routingMode, 'targeted')
      assert.deepEqual(v.matchedCredentials, [{ id: cred.credential.id, label: 'Catalog sync' }])
      assert.equal(v.currentRoutingMode, 'targeted')

      // Send test: one click through the real signing and delivery path.
      const sent = await app.app.inject({ method: 'POST', url: '/gatehouse/admin/v1/webhooks/sink/send-test', headers: auth })
      assert.equal(sent.statusCode, 200)
      const result = sent.json().data
      assert.equal(result.outcome.status, 'delivered')
      assert.equal(result.outcome.statusCode, 200)
      v = await view()
      assert.equal(v.capturedCount, 3)
      assert.equal(v.validCount, 3)
      assert.equal(v.captures[0].deliveryId, result.deliveryId)
      assert.equal(v.captures[0].kind, 'test')
      assert.equal(v.routingMode, 'test')
      assert.deepEqual(JSON.parse(v.captures[0].payloadPreview), { id: result.eventId, eventKind: 'test', isTest: true, triggeredAt: JSON.parse(v.captures[0].payloadPreview).triggeredAt, triggeredBy: 'admin-token' })
      const row = await app.database.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).where('id', '=', result.id).executeTakeFirstOrThrow()
      assert.deepEqual([row.status, Number(row.attempts)], ['delivered', 1])

      // Forged and stale deliveries are captured but not counted valid.
      const body = '{"id":"evt_forged"}'
      const forged = await fetch(`http://127.0.0.1:${port}${SINK}`, {
        method: 'POST', body,
        headers: { 'content-type': 'application/json', 'x-gatehouse-webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'x-gatehouse-webhook-signature': 'sha256=' + 'a'.repeat(64) },
      })
      assert.deepEqual(await forged.json(), { ok: true, signatureValid: false })
      const staleTs = Math.floor(Date.now() / 1000) - 3600
      const stale = await fetch(`http://127.0.0.1:${port}${SINK}`, {
        method: 'POST', body,
        headers: {
          'content-type': 'application/json', 'x-gatehouse-webhook-timestamp': String(staleTs),
          'x-gatehouse-webhook-signature': 'sha256=' + createHmac('sha256', secret).update(`${staleTs}.${body}`).digest('hex'),
          'webhook-id': 'whd_x', 'webhook-timestamp': String(staleTs),
          'webhook-signature': 'v1,' + createHmac('sha256', secret).update(`whd_x.${staleTs}.${body}`).digest('base64'),
        },
      })
      assert.deepEqual(await stale.json(), { ok: true, signatureValid: false })
      v = await view()
      assert.equal(v.capturedCount, 5)
      assert.equal(v.validCount, 3)
      assert.deepEqual(v.captures.slice(0, 2).map((x: { problem: string }) => x.problem), [
        'timestamp outside the five-minute tolerance', 'X-Gatehouse-Webhook-Signature does not match'])

      // Clear resets the history and the counts.
      const cleared = (await app.app.inject({ method: 'POST', url: '/gatehouse/admin/v1/webhooks/sink/clear', headers: auth })).json().data
      assert.equal(cleared.capturedCount, 0)
      assert.equal(cleared.validCount, 0)
      assert.equal(cleared.lastCapturedAt, null)
      assert.deepEqual(cleared.captures, [])

      // The history keeps the last 50 captures; the counts keep everything.
      for (let i = 0; i < 55; i++) await app.app.inject({ method: 'POST', url: SINK, headers: { 'content-type': 'application/json' }, payload: `{"n":${i}}` })
      v = await view()
      assert.equal(v.capturedCount, 55)
      assert.equal(Number((await app.database.db.selectFrom('webhook_sink_captures').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), 50)
      assert.equal(JSON.parse(v.captures[0].payloadPreview).n, 54)
    } finally {
      await app.close()
    }
  })
}
