// At-least-once with bounded retries: a receiver answering 500 gets exactly max-attempts
// tries at growing intervals, then the delivery is a dead letter. Retry-After is honoured,
// redirects are not followed, a hanging receiver times out, a refused connection retries.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects, type TestApp } from '../helpers/test-app.js'
import { startReceiver, type Receiver } from './helpers/receiver.js'

const SECRET = 'retry-secret'

async function deliveryRows(app: TestApp) {
  return app.database.db.selectFrom('webhook_deliveries').selectAll().orderBy('id').execute()
}

async function waitForStatus(app: TestApp, status: string, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs
  for (;;) {
    const rows = await deliveryRows(app)
    if (rows.length > 0 && rows.every((r) => r.status === status)) return rows
    if (Date.now() > until) throw new Error(`deliveries not ${status}: ${JSON.stringify(rows.map((r) => r.status))}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

function appWith(dialect: 'sqlite' | 'postgres', receiver: Receiver | string, env: Record<string, string> = {}, retryBaseMs = 100) {
  return buildTestApp({
    dialect, webhookWorker: { pollMs: 20, retryBaseMs },
    env: { PLUGIN_GATEHOUSE_WEBHOOK_URL: typeof receiver === 'string' ? receiver : receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: SECRET, ...env },
  })
}

for (const dialect of await testDialects()) {
  test(`${dialect}: a receiver answering 500 gets exactly max attempts at growing intervals, then the item is a dead letter`, async () => {
    const receiver = await startReceiver('/hook', (_r, res) => { res.writeHead(500).end('down') })
    const app = await appWith(dialect, receiver, { PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS: '4' })
    try {
      const p = await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
      const [row] = await waitForStatus(app, 'failed')
      await new Promise((r) => setTimeout(r, 400))
      assert.equal(receiver.received.length, 4, 'exactly max attempts, no more')
      const ids = new Set(receiver.received.map((r) => JSON.parse(r.body).id))
      assert.equal(ids.size, 1, 'every attempt carries the same event id')
      assert.equal(new Set(receiver.received.map((r) => r.headers['x-gatehouse-webhook-id'])).size, 1, 'and the same delivery id')
      assert.deepEqual(receiver.received.map((r) => r.headers['x-gatehouse-webhook-attempt']), ['1', '2', '3', '4'])
      const at = receiver.received.map((r) => r.at)
      const gaps = at.slice(1).map((t, i) => t - at[i])
      // base 100 ms, doubling, jitter ×[0.75, 1.25): ≥75, ≥150, ≥300 ms, and each longer than the last.
      assert.ok(gaps[0] >= 70 && gaps[1] >= 145 && gaps[2] >= 295, `gaps follow the backoff: ${gaps.join(', ')}`)
      assert.ok(gaps[1] > gaps[0] && gaps[2] > gaps[1], `intervals grow: ${gaps.join(', ')}`)
      assert.ok(gaps[2] < 2000, `and stay near the schedule: ${gaps.join(', ')}`)

      assert.equal(row.resource_id, p.id)
      assert.equal(Number(row.attempts), 4)
      assert.equal(Number(row.last_status_code), 500)
      assert.equal(row.last_error, 'HTTP 500')
      assert.ok(row.dead_lettered_at !== null)
      const token = await app.issueToken(['webhooks:dlq:read'])
      const dlq = (await app.get('/gatehouse/v1/webhooks/dlq', token)).json()
      assert.deepEqual(dlq.data.map((d: { id: number; status: string; attempts: number }) => [d.id, d.status, d.attempts]), [[Number(row.id), 'failed', 4]])
    } finally {
      await app.close()
      await receiver.close()
    }
  })
}

test('a longer Retry-After replaces the computed backoff', async () => {
  let calls = 0
  const receiver = await startReceiver('/hook', (_r, res) => {
    calls++
    if (calls === 1) res.writeHead(503, { 'retry-after': '1' }).end()
    else res.writeHead(204).end()
  })
  const app = await appWith('sqlite', receiver, {}, 20)
  try {
    await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
    await waitForStatus(app, 'delivered')
    assert.equal(receiver.received.length, 2)
    const gap = receiver.received[1].at - receiver.received[0].at
    assert.ok(gap >= 990 && gap < 2500, `waited as asked (1 s), not the 20 ms backoff: ${gap} ms`)
  } finally {
    await app.close()
    await receiver.close()
  }
})

test('Retry-After never shortens the schedule: a receiver answering Retry-After: 0 still gets growing intervals', async () => {
  let calls = 0
  const receiver = await startReceiver('/hook', (_r, res) => {
    calls++
    if (calls <= 2) res.writeHead(503, { 'retry-after': '0' }).end()
    else res.writeHead(204).end()
  })
  const app = await appWith('sqlite', receiver, {}, 300)
  try {
    await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
    await waitForStatus(app, 'delivered')
    assert.equal(receiver.received.length, 3)
    const gaps = [1, 2].map((i) => receiver.received[i].at - receiver.received[i - 1].at)
    // The computed waits: 300 ms, then 600 ms, each scaled by [0.75, 1.25).
    assert.ok(gaps[0] >= 225 && gaps[1] >= 450, `waits of ${gaps.join(' and ')} ms`)
  } finally {
    await app.close()
    await receiver.close()
  }
})

test('redirects are not followed: a 3xx is a failed attempt and the other address never hears of it', async () => {
  const elsewhere = await startReceiver('/elsewhere')
  const receiver = await startReceiver('/hook', (_r, res) => { res.writeHead(302, { location: elsewhere.url }).end() })
  const app = await appWith('sqlite', receiver, { PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS: '1' })
  try {
    await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
    const [row] = await waitForStatus(app, 'failed')
    assert.equal(receiver.received.length, 1)
    assert.equal(elsewhere.received.length, 0)
    assert.equal(Number(row.last_status_code), 302)
    assert.equal(row.last_error, 'HTTP 302 (redirects are not followed)')
  } finally {
    await app.close()
    await receiver.close()
    await elsewhere.close()
  }
})

test('a receiver that does not answer in time is a failed attempt (timeout), and a refused connection too', async () => {
  const hanging = await startReceiver('/hook', () => { /* never answers */ })
  const app = await appWith('sqlite', hanging, { PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS: '1', PLUGIN_GATEHOUSE_WEBHOOK_TIMEOUT_SECONDS: '1' })
  try {
    const started = Date.now()
    await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
    const [row] = await waitForStatus(app, 'failed')
    const took = Date.now() - started
    assert.ok(took >= 950 && took < 4000, `gave up after the 1 s timeout: ${took} ms`)
    assert.equal(row.last_status_code, null)
    assert.equal(row.last_error, 'timeout after 1s')
  } finally {
    await app.close()
    await hanging.close()
  }

  // A port nobody listens on.
  const closed = await startReceiver()
  const url = closed.url
  await closed.close()
  const app2 = await appWith('sqlite', url, { PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS: '2' }, 20)
  try {
    await app2.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
    const [row] = await waitForStatus(app2, 'failed')
    assert.equal(Number(row.attempts), 2)
    assert.equal(row.last_error, 'connection failed (ECONNREFUSED)')
    assert.ok(!String(row.last_error).includes('127.0.0.1'), 'errors do not repeat the URL')
  } finally {
    await app2.close()
  }
})
