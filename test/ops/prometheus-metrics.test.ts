// /metrics with Accept: text/plain is Prometheus text that an independent parser
// (parse-prometheus-text-format from npm) reads back to the same numbers the JSON form
// reports; rate-limit denials are counted too, and so are pending approvals (0 while the
// control plane is off), and so are the page cache's hits and misses.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { buildTestApp } from '../helpers/test-app.js'
import { ADMIN_TOKEN, AGENT_SCOPES, controlApp } from '../control/helpers/control-app.js'


const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version

test('Prometheus exposition parses and agrees with the JSON metrics', async () => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '5' } })
  try {
    const metricsToken = await app.issueToken(['metrics:read'])
    const reader = await app.issueToken(['products:read'])
    await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
    // 3 good reads, 2 scope denials, then the reader's 6th request in the minute is rate-limited.
    for (let i = 0; i < 3; i++) assert.equal((await app.get('/gatehouse/v1/products', reader)).statusCode, 200)
    for (let i = 0; i < 2; i++) assert.equal((await app.get('/gatehouse/v1/orders', reader)).statusCode, 403)
    const limited = await app.get('/gatehouse/v1/products', reader)
    assert.equal(limited.statusCode, 429)
    for (let i = 0; i < 4; i++) assert.equal((await app.get('/gatehouse/v1/products', `nope-${i}`)).statusCode, 401)

    const res = await app.get('/gatehouse/v1/metrics', metricsToken, { accept: 'text/plain' })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
    assert.ok(!res.body.startsWith('{'), 'not the JSON envelope')
    const families = parsePrometheusTextFormat(res.body)
    const family = (name: string) => {
      const f = families.find((x) => x.name === name)
      assert.ok(f, `family ${name} present`)
      return f
    }
    const value = (name: string, labels: Record<string, string> = {}) => {
      const m = family(name).metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v))
      assert.ok(m, `${name}${JSON.stringify(labels)} present`)
      return Number(m.value)
    }

    assert.equal(family('gatehouse_info').metrics[0].labels?.version, version)
    assert.equal(family('gatehouse_http_requests_total').type, 'COUNTER')
    assert.equal(value('gatehouse_http_requests_total', { route: 'products.list', status: '200' }), 3)
    assert.equal(value('gatehouse_http_requests_total', { route: 'orders.list', status: '403' }), 2)
    assert.equal(value('gatehouse_http_requests_total', { route: 'products.list', status: '429' }), 1)
    assert.equal(value('gatehouse_http_requests_total', { route: 'products.list', status: '401' }), 4)
    assert.equal(value('gatehouse_auth_failures_total'), 4)
    assert.equal(value('gatehouse_scope_denials_total'), 2)
    assert.equal(value('gatehouse_rate_limit_denials_total'), 1)
    assert.equal(value('gatehouse_webhook_dlq_size'), 0)
    assert.equal(value('gatehouse_webhook_queue_depth'), 0)
    assert.equal(value('gatehouse_webhook_deliveries', { status: 'failed' }), 0)
    assert.equal(value('gatehouse_window_signal', { signal: 'auth_failures' }), 4)
    assert.equal(value('gatehouse_window_signal', { signal: 'rate_limited' }), 1)
    // The same page three times: computed, computed and kept (its second request), then a hit.
    assert.equal(family('gatehouse_page_cache_requests_total').type, 'COUNTER')
    assert.equal(value('gatehouse_page_cache_requests_total', { outcome: 'hit' }), 1)
    assert.equal(value('gatehouse_page_cache_requests_total', { outcome: 'miss' }), 2)
    assert.equal(family('gatehouse_approvals_pending').type, 'GAUGE')
    assert.equal(value('gatehouse_approvals_pending'), 0, 'the control plane is off')

    const hist = family('gatehouse_http_request_duration_seconds')
    assert.equal(hist.type, 'HISTOGRAM')
    // This parser folds every labelled series of a histogram into one, so read one route's
    // series on its own: its buckets must be cumulative and end at +Inf with every request.
    const oneRoute = res.body.split('\n')
      .filter((l) => l.startsWith('# ') ? l.includes('gatehouse_http_request_duration_seconds') : l.startsWith('gatehouse_http_request_duration_seconds_bucket{route="products.list"'))
      .join('\n') + '\n'
    const [products] = parsePrometheusTextFormat(oneRoute)[0].metrics
    assert.ok(products.buckets, 'bucket series parsed')
    // (Integer-like keys such as "1" come first in a JS object: order the bounds numerically.)
    const series = Object.entries(products.buckets).map(([le, c]) => [le === '+Inf' ? Infinity : Number(le), Number(c)] as const).sort((a, b) => a[0] - b[0])
    assert.deepEqual(series.map(([le]) => le), [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, Infinity])
    const counts = series.map(([, c]) => c)
    assert.ok(counts.every((c, i) => i === 0 || c >= counts[i - 1]), 'buckets are cumulative')
    assert.equal(counts[counts.length - 1], 8, 'every products.list request is in +Inf')
    assert.match(res.body, /^gatehouse_http_request_duration_seconds_count\{route="products.list"\} 8$/m)

    // The JSON form reports the same counters.
    const json = (await app.get('/gatehouse/v1/metrics', metricsToken)).json()
    assert.equal(json.ok, true)
    assert.equal(json.data.rateLimitDenials, 1)
    assert.equal(json.data.scopeDenials, 2)
    assert.equal(json.data.authFailures, 4)
    assert.equal(json.data.version, version)
    assert.equal(json.data.approvalsPending, 0)
    assert.deepEqual(json.data.pageCache, { hits: 1, misses: 2 })
    // A Prometheus scraper's Accept header picks text; a browser-like one keeps JSON.
    const scrape = await app.get('/gatehouse/v1/metrics', metricsToken, { accept: 'application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.2' })
    assert.match(String(scrape.headers['content-type']), /^text\/plain/)
    const browser = await app.get('/gatehouse/v1/metrics', metricsToken, { accept: 'text/html,application/json;q=0.9,*/*;q=0.8' })
    assert.equal(browser.json().ok, true)

    // Scope is checked before content negotiation.
    const other = await app.get('/gatehouse/v1/metrics', await app.issueToken(['health:read']), { accept: 'text/plain' })
    assert.equal(other.statusCode, 403)
    assert.equal(other.json().error.message, 'Missing required scope: metrics:read')
  } finally {
    await app.close()
  }
})

test('approvals pending: a gauge of approvals waiting for a decision, in JSON and Prometheus text', async () => {
  const app = await controlApp('sqlite')
  try {
    const metricsToken = await app.issueToken(['metrics:read'])
    const agent = await app.token(AGENT_SCOPES)
    const pending = async () => {
      const json = (await app.get('/gatehouse/v1/metrics', metricsToken)).json().data.approvalsPending
      const text = (await app.get('/gatehouse/v1/metrics', metricsToken, { accept: 'text/plain' })).body
      const [gauge] = parsePrometheusTextFormat(text).find((f) => f.name === 'gatehouse_approvals_pending')?.metrics ?? []
      return [json, Number(gauge?.value)]
    }
    assert.deepEqual(await pending(), [0, 0])
    for (const status of ['shipped', 'cancelled']) {
      const res = await app.request(agent, 'order.setStatus', { orderId: app.ids.orders, status })
      assert.ok(res.statusCode < 300, res.body)
    }
    assert.deepEqual(await pending(), [2, 2])
    // A decided approval no longer waits.
    const [first] = (await app.database.db.selectFrom('control_approvals').select('id').orderBy('created_at').execute())
    const admin = await app.app.inject({
      method: 'POST', url: `/gatehouse/admin/v1/control/approvals/${first.id}/decide`, payload: JSON.stringify({ decision: 'reject', reason: 'not now' }),
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    })
    assert.equal(admin.statusCode, 200, admin.body)
    assert.deepEqual(await pending(), [1, 1])
  } finally {
    await app.close()
  }
})
