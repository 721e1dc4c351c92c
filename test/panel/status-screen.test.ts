// The Status screen: readiness and security posture without secrets; the probe (admin
// only) with its ledger, payload inspection and the five-minute cooldown surfaced; the
// dead-letter queue with inspection and replay; the dev test sink only in dev mode with
// its flag, with send-test and clear going through the real delivery path.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freePort } from '../helpers/free-port.js'
import { startReceiver } from '../webhooks/helpers/receiver.js'
import { panelApp, signedIn } from './helpers/panel-client.js'

const SECRET = 'status-screen-secret-0123456789'
const LEGACY = 'legacy-default-token-for-status'

async function deadLetters(db: import('../../src/store/database.js').Db, n: number): Promise<number[]> {
  const until = Date.now() + 10_000
  for (;;) {
    const rows = await db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'failed').orderBy('id').execute()
    if (rows.length === n) return rows.map((r) => Number(r.id))
    if (Date.now() > until) throw new Error('dead letters did not appear')
    await new Promise((r) => setTimeout(r, 20))
  }
}

test('status: posture without secrets, probe ledger and cooldown, DLQ inspection and replay', async (t) => {
  let answer = 503
  const receiver = await startReceiver('/hook-path', (_r, res) => { res.writeHead(answer).end() })
  t.after(() => receiver.close())
  const app = await panelApp({
    PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: SECRET, PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS: '1',
    PLUGIN_GATEHOUSE_API_TOKEN: LEGACY,
  }, { webhookWorker: { pollMs: 20, retryBaseMs: 20 } })
  t.after(() => app.close())
  const s = await signedIn(app)
  await app.services.credentials.create({ label: 'Nightly <sync>', scopes: ['products:read'], expiresAt: new Date(Date.now() + 3 * 86_400_000).toISOString() })

  await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
  await app.services.store.create('products', { type: 'mug', title: 'Cup', slug: 'cup' })
  const [a, b] = await deadLetters(app.database.db, 2)
  answer = 200

  const status = await s.page('/gatehouse/cp/status')
  assert.equal(status.statusCode, 200)
  for (const needle of [SECRET, LEGACY, '/hook-path', 'Nightly <sync>']) assert.equal(status.body.includes(needle), false, `${needle} is not on the page`)
  assert.match(status.body, /<h2>Readiness <span class="badge (ready|degraded|not_ready)">/)
  assert.match(status.body, /deadLetters<\/td><td><span class="badge warn">/)
  assert.match(status.body, /<dt>Expiring soon<\/dt><dd><a href="\/gatehouse\/cp\/accounts\/cred_[^"]+">Nightly &lt;sync&gt;<\/a> \(2 d\)/)
  assert.match(status.body, /<dt>Legacy token<\/dt><dd class="warn">configured/)
  assert.match(status.body, /<dt>Secret<\/dt><dd>set \(never shown\)/)
  assert.match(status.body, new RegExp(`<dt>Target</dt><dd>http://127.0.0.1:${receiver.port}</dd>`))
  assert.match(status.body, /Ready: a probe may run now/)
  assert.doesNotMatch(status.body, /Dev test sink/, 'no sink outside dev mode')

  // Probe: admin only (a machine credential cannot reach it anywhere), then the ledger.
  const machine = await app.issueToken(['webhooks:dlq:replay', 'webhooks:dlq:read'])
  assert.equal((await app.app.inject({ method: 'POST', url: '/gatehouse/admin/v1/webhooks/probe', headers: { authorization: `Bearer ${machine}` } })).statusCode, 401)
  assert.equal((await app.app.inject({ method: 'POST', url: '/gatehouse/v1/webhooks/probe', headers: { authorization: `Bearer ${machine}` } })).statusCode, 404)
  const probe = await s.submit('/gatehouse/cp/status/probe')
  assert.equal(probe.statusCode, 303)
  assert.equal(probe.headers.location, '/gatehouse/cp/status#probe')
  const probed = receiver.received.filter((r) => JSON.parse(r.body).isProbe === true)
  assert.equal(probed.length, 1)
  assert.equal(JSON.parse(probed[0].body).triggeredBy, 'admin:ops-admin')
  const after = await s.page('/gatehouse/cp/status')
  assert.match(after.body, /class="flash ok" role="status">Probe probe_[0-9a-f]+ delivered: HTTP 200/)
  assert.match(after.body, /<dt>Delivered \/ failed<\/dt><dd>1 \/ 0<\/dd>/)
  assert.match(after.body, /&quot;isProbe&quot;: true/, 'payload inspection')
  assert.match(after.body, /Cooling down: the next probe is possible at/)
  assert.match(after.body, /<button type="submit" disabled>Run probe<\/button>/)

  // Within the cooldown a second probe is refused and says when to retry; nothing is sent.
  await s.submit('/gatehouse/cp/status/probe')
  const refused = await s.page('/gatehouse/cp/status')
  assert.match(refused.body, /class="flash error" role="status">A probe ran less than five minutes ago; try again in \d+ seconds/)
  assert.equal(receiver.received.filter((r) => JSON.parse(r.body).isProbe === true).length, 1)

  // DLQ: listed, inspected with its payload, replayed one then all.
  assert.match(refused.body, new RegExp(`action="/gatehouse/cp/status/dlq/${a}/replay"`))
  const inspect = await s.page(`/gatehouse/cp/status/dlq/${a}`)
  assert.match(inspect.body, /&quot;title&quot;: &quot;Mug&quot;/)
  assert.match(inspect.body, /503/)
  await s.submit(`/gatehouse/cp/status/dlq/${a}/replay`)
  assert.match((await s.page('/gatehouse/cp/status')).body, new RegExp(`Replayed dead letter ${a}\\.`))
  // Once it is delivered, one is left: counted in the singular, each count linking to its page.
  await deadLetters(app.database.db, 1)
  const one = (await s.page('/gatehouse/cp/status')).body
  assert.match(one, /deadLetters<\/td><td><span class="badge warn">warn<\/span><\/td><td><a href="\/gatehouse\/cp\/deliveries\?status=failed">1 dead-lettered delivery waits for replay<\/a>/)
  assert.match(one, /<a href="\/gatehouse\/cp\/deliveries\?status=failed">1 dead letter<\/a>/)
  assert.match(one, /<dt>Credentials<\/dt><dd><a href="\/gatehouse\/cp\/integrations">3 total<\/a>/)
  await s.submit('/gatehouse/cp/status/dlq/replay-all')
  assert.match((await s.page('/gatehouse/cp/status')).body, /Replayed 1 dead letter\./)
  const rows = await app.database.db.selectFrom('webhook_deliveries').select(['id', 'replay_count']).where('id', 'in', [a, b]).orderBy('id').execute()
  assert.deepEqual(rows.map((r) => Number(r.replay_count)), [1, 1])
  assert.equal((await s.page('/gatehouse/cp/status/dlq/999999')).statusCode, 404)
  // The sink's actions do not exist outside dev mode.
  assert.equal((await s.submit('/gatehouse/cp/status/sink/send-test')).statusCode, 404)
})

test('dev test sink: counts, preview, send test webhook and clear captures', async (t) => {
  // The sink receives over real HTTP at BASE_URL, so the app listens on a known port.
  const port = await freePort()
  const app = await panelApp({
    PLUGIN_GATEHOUSE_DEV_MODE: 'true', PLUGIN_GATEHOUSE_WEBHOOK_TEST_SINK: 'true', PLUGIN_GATEHOUSE_BASE_URL: `http://127.0.0.1:${port}`,
    PLUGIN_GATEHOUSE_WEBHOOK_URL: `http://127.0.0.1:${port}/gatehouse/dev/webhook-test-sink`, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: SECRET,
  })
  t.after(() => app.close())
  await app.app.listen({ host: '127.0.0.1', port })
  const s = await signedIn(app)

  const before = await s.page('/gatehouse/cp/status')
  assert.match(before.body, /<h2>Dev test sink<\/h2>/)
  assert.match(before.body, /<dd id="sink-captured">0<\/dd>/)
  assert.match(before.body, /deliveries go to the dev test sink/)

  const sent = await s.submit('/gatehouse/cp/status/sink/send-test')
  assert.equal(sent.headers.location, '/gatehouse/cp/status#sink')
  const after = await s.page('/gatehouse/cp/status')
  assert.match(after.body, /Test webhook whd_[^ ]+ delivered to the sink \(HTTP 200\)/)
  assert.match(after.body, /<dd id="sink-captured">1<\/dd>/)
  assert.match(after.body, /<dd id="sink-valid">1<\/dd>/)
  assert.match(after.body, /&quot;isTest&quot;:true/, 'payload preview')
  assert.match(after.body, /<dt>Routing mode<\/dt><dd>test \(changes now: firehose\)/)
  assert.equal(after.body.includes(SECRET), false)

  await s.submit('/gatehouse/cp/status/sink/clear')
  const cleared = await s.page('/gatehouse/cp/status')
  assert.match(cleared.body, /Sink captures cleared\./)
  assert.match(cleared.body, /<dd id="sink-captured">0<\/dd>/)
})
