// The charts' counters: several processes add to the same time buckets (minute and hour
// rows), nothing reaches the database until a flush, p95 comes from the fixed histogram,
// ranges read the right resolution, old buckets are pruned; and through the app, machine
// requests, scope denials and rate-limit refusals count for the credential that made them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects, testDatabase } from '../helpers/test-app.js'
import { MetricBuckets, p95Of, readSeries, totalsBySubject, HOUR_MS, MINUTE_MS } from '../../src/ops/metric-buckets.js'

const rowCount = async (db: import('../../src/store/database.js').Db) =>
  Number((await db.selectFrom('ops_metric_buckets').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)

for (const dialect of await testDialects()) {
  test(`${dialect}: two processes add to the same buckets; series, p95 and pruning`, async (t) => {
    const database = await testDatabase(dialect)
    t.after(() => database.destroy())
    const now = Date.UTC(2025, 0, 31, 12, 30, 15)
    let clock = now
    const a = new MetricBuckets(database.db, () => clock)
    const b = new MetricBuckets(database.db, () => clock)

    for (let i = 0; i < 18; i++) a.observeRequest('cred_a', 200, 4)
    a.observeRequest('cred_a', 404, 30)
    a.observeRequest('cred_a', 503, 700)
    b.observeRequest('cred_a', 200, 8)
    b.observeRequest('cred_b', 200, 3)
    b.count('cred_a', 'scope_denials')
    b.count('cred_b', 'rate_limited', 2)
    a.recordDelivery('delivered')
    b.recordDelivery('retrying')
    b.recordDelivery('failed')
    assert.equal(await rowCount(database.db), 0, 'recording writes nothing')
    await a.flush()
    await b.flush()

    const site = await readSeries(database.db, { range: 'hour', now })
    assert.equal(site.points.length, 60)
    assert.equal(site.stepSeconds, 60)
    const last = site.points[site.points.length - 1]
    assert.equal(last.at, new Date(now - (now % MINUTE_MS)).toISOString(), 'the current minute is the last point')
    assert.deepEqual({ ...site.totals }, {
      requests: 22, clientErrors: 1, serverErrors: 1, authFailures: 0, scopeDenials: 1, rateLimited: 2, p95Ms: 50,
      delivered: 1, failedAttempts: 2, deadLettered: 1,
    })
    const a1 = await readSeries(database.db, { range: 'hour', credentialId: 'cred_a', now })
    assert.equal(a1.totals.requests, 21)
    assert.equal(a1.totals.scopeDenials, 1)
    assert.equal(a1.totals.rateLimited, 0)
    assert.equal(a1.totals.delivered, 0, 'deliveries belong to the site, not a credential')

    // The week reads hour rows: the same counts, added by both processes.
    const week = await readSeries(database.db, { range: 'week', now })
    assert.equal(week.points.length, 56)
    assert.equal(week.totals.requests, 22)
    assert.equal(week.totals.failedAttempts, 2)

    // A later minute adds a row; the day range sums minutes into 15-minute points.
    clock = now + 20 * MINUTE_MS
    a.observeRequest('cred_a', 200, 1)
    await a.flush()
    const day = await readSeries(database.db, { range: 'day', now: clock })
    assert.equal(day.points.length, 96)
    assert.deepEqual(day.points.filter((p) => p.requests > 0).map((p) => p.requests), [22, 1])
    const bySubject = await totalsBySubject(database.db, clock - 86_400_000)
    assert.equal(bySubject.get('cred_a')?.requests, 22)
    assert.equal(bySubject.get('cred_b')?.rateLimited, 2)
    assert.equal(bySubject.get('')?.delivered, 1)

    // Minute rows go after 26 hours, hour rows after 8 days.
    clock = now + 27 * HOUR_MS
    b.observeRequest('cred_b', 200, 1)
    await b.flush()
    const left = await database.db.selectFrom('ops_metric_buckets').select(['resolution_ms', 'bucket_start']).execute()
    assert.equal(left.filter((r) => Number(r.resolution_ms) === MINUTE_MS && Number(r.bucket_start) < clock - 26 * HOUR_MS).length, 0)
    assert.ok(left.some((r) => Number(r.resolution_ms) === HOUR_MS && Number(r.bucket_start) < now), 'hour rows stay for the week chart')
  })
}

test('p95 is the upper bound of the latency bucket holding the 95th percentile', () => {
  assert.equal(p95Of(new Array(12).fill(0)), null)
  const h = new Array(12).fill(0)
  h[0] = 94
  h[3] = 6
  assert.equal(p95Of(h), 50)
  h[0] = 95
  h[3] = 5
  assert.equal(p95Of(h), 5)
  const slow = new Array(12).fill(0)
  slow[11] = 1
  assert.equal(p95Of(slow), 20_000, 'slower than the last bound reads as twice it')
})

test('machine requests, scope denials and rate-limit refusals count for their credential', async (t) => {
  const ADMIN = 'admin-token-for-series-0123456789'
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '4', PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN } })
  t.after(() => app.close())
  const { credential, token } = await app.services.credentials.create({ label: 'counted', scopes: ['products:read'] })
  for (let i = 0; i < 2; i++) assert.equal((await app.get('/gatehouse/v1/products', token)).statusCode, 200)
  assert.equal((await app.get('/gatehouse/v1/orders', token)).statusCode, 403)
  assert.equal((await app.get('/gatehouse/v1/products', token)).statusCode, 200)
  assert.equal((await app.get('/gatehouse/v1/products', token)).statusCode, 429)
  assert.equal((await app.get('/gatehouse/v1/products', 'gth_unknown')).statusCode, 401)
  await app.services.metricBuckets.flush()
  const mine = await readSeries(app.services.database.db, { range: 'hour', credentialId: credential.id })
  assert.equal(mine.totals.requests, 5)
  assert.equal(mine.totals.clientErrors, 2)
  assert.equal(mine.totals.scopeDenials, 1)
  assert.equal(mine.totals.rateLimited, 1)
  const site = await readSeries(app.services.database.db, { range: 'hour' })
  assert.equal(site.totals.requests, 6)
  assert.equal(site.totals.authFailures, 1)

  // The same series on the admin API.
  const res = await app.get(`/gatehouse/admin/v1/metrics/series?range=day&credential=${credential.id}`, ADMIN)
  assert.equal(res.statusCode, 200)
  assert.equal(res.json().data.totals.scopeDenials, 1)
  assert.equal(res.json().data.points.length, 96)
  const bad = await app.get('/gatehouse/admin/v1/metrics/series?range=month', ADMIN)
  assert.equal(bad.statusCode, 400)
  assert.match(bad.body, /range/)
})
