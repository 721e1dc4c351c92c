// The delivery log on the admin API: every attempt is recorded with its status code,
// latency, the headers sent (signatures, never the secret) and the first kilobyte of the
// answer; the listing filters by status, event type, resource, credential and time, newest
// first with a cursor, and names a bad filter; replay takes one delivery or every delivery
// a filter selects (dead-lettered or delivered, never queued ones), audited with the admin.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects, type TestApp } from '../helpers/test-app.js'
import { startReceiver } from './helpers/receiver.js'
import { listAudit } from '../../src/control/audit-log.js'
import { until } from '../helpers/until.js'

const SECRET = 'delivery-log-secret-0123456789abcdef'
const ADMIN = 'delivery-log-admin-token-0123456789'
const BASE = '/gatehouse/admin/v1/webhooks/deliveries'
const WORKER = { pollMs: 20, retryBaseMs: 20 }


const statuses = async (app: TestApp) =>
  (await app.database.db.selectFrom('webhook_deliveries').select('status').orderBy('id').execute()).map((r) => r.status as string)
const ids = (res: { json(): { data: { id: number }[] } }) => res.json().data.map((d) => d.id)

for (const dialect of await testDialects()) {
  test(`${dialect}: attempts are recorded; the log filters, pages and replays`, async (t) => {
    let answer = 500
    const big = 'x'.repeat(5000)
    const receiver = await startReceiver('/hook', (_r, res) => { res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer === 500 ? `oops ${big}` : 'thanks') })
    t.after(() => receiver.close())
    const app = await buildTestApp({
      dialect, webhookWorker: WORKER,
      env: { PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: SECRET, PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS: '2', PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN },
    })
    t.after(() => app.close())
    const { credential } = await app.services.credentials.create({ label: 'products only', scopes: ['products:read'], webhookInterests: [{ resourceType: 'product', actions: ['created', 'updated'] }] })
    await app.services.credentials.create({ label: 'entries', scopes: ['entries:read'], webhookInterests: [{ resourceType: 'entry', actions: ['created'] }] })
    const { store } = app.services
    const mug = await store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' }) as { id: number }
    await store.create('products', { type: 'mug', title: 'Cup', slug: 'cup' })
    await until(async () => (await statuses(app)).join() === 'failed,failed', 'two dead letters')
    answer = 200
    await store.update('products', mug.id, { title: 'Mug 2' })
    await until(async () => (await statuses(app)).join() === 'failed,failed,delivered', 'a delivery')
    const [d1, d2, d3] = (await app.database.db.selectFrom('webhook_deliveries').select('id').orderBy('id').execute()).map((r) => Number(r.id))

    // One delivery: its two failed attempts with status, latency, headers and a capped answer.
    // Attempts are written in batches, a moment after the delivery's own row (its status).
    await until(async () => (await app.get(`${BASE}/${d1}`, ADMIN)).json().data.attemptLog.length === 2, 'both attempts of the dead letter in the log')
    const one = await app.get(`${BASE}/${d1}`, ADMIN)
    assert.equal(one.statusCode, 200)
    const d = one.json().data
    assert.equal(d.status, 'failed')
    assert.equal(d.eventType, 'product.created')
    assert.deepEqual(d.matchedCredentials, [credential.id])
    assert.equal(d.payload.resourceId, mug.id)
    assert.deepEqual(d.attemptLog.map((a: { attempt: number; outcome: string; statusCode: number }) => [a.attempt, a.outcome, a.statusCode]), [[1, 'retrying', 500], [2, 'failed', 500]])
    const a1 = d.attemptLog[0]
    assert.equal(typeof a1.durationMs, 'number')
    assert.equal(a1.responseBytes, 5005)
    assert.equal(a1.responseExcerpt.length, 1024, 'the answer is kept to its first kilobyte')
    assert.ok(a1.responseExcerpt.startsWith('oops xxx'))
    assert.equal(a1.requestHeaders['x-gatehouse-webhook-id'], d.deliveryId)
    assert.match(a1.requestHeaders['x-gatehouse-webhook-signature'], /^sha256=[0-9a-f]{64}$/)
    assert.equal(a1.requestHeaders['x-gatehouse-webhook-attempt'], '1')
    assert.equal(a1.requestHeaders['content-length'], String(Buffer.byteLength(JSON.stringify(d.payload))))
    // The signing secret is never stored with an attempt, in any form.
    const stored = JSON.stringify(await app.database.db.selectFrom('webhook_attempts').selectAll().execute())
    for (const form of [SECRET, Buffer.from(SECRET).toString('base64')]) assert.equal(stored.includes(form), false)
    await until(async () => (await app.get(`${BASE}/${d3}`, ADMIN)).json().data.attemptLog.length === 1, 'the delivered attempt in the log')
    const ok = (await app.get(`${BASE}/${d3}`, ADMIN)).json().data
    assert.deepEqual(ok.attemptLog.map((a: { outcome: string; statusCode: number; responseExcerpt: string }) => [a.outcome, a.statusCode, a.responseExcerpt]), [['delivered', 200, 'thanks']])

    // Filters, newest first; each bad one is a 400 naming it.
    assert.deepEqual(ids(await app.get(BASE, ADMIN)), [d3, d2, d1])
    assert.deepEqual(ids(await app.get(`${BASE}?status=failed`, ADMIN)), [d2, d1])
    assert.deepEqual(ids(await app.get(`${BASE}?eventType=product.updated`, ADMIN)), [d3])
    assert.deepEqual(ids(await app.get(`${BASE}?eventType=product`, ADMIN)), [d3, d2, d1])
    assert.deepEqual(ids(await app.get(`${BASE}?resource=product:${mug.id}`, ADMIN)), [d3, d1])
    assert.deepEqual(ids(await app.get(`${BASE}?credential=${credential.id}&since=1h`, ADMIN)), [d3, d2, d1])
    assert.deepEqual(ids(await app.get(`${BASE}?credential=${credential.id.slice(0, -1)}`, ADMIN)), [], 'a credential id matches exactly')
    assert.deepEqual(ids(await app.get(`${BASE}?until=2000-01-01T00:00:00Z`, ADMIN)), [])
    const page1 = await app.get(`${BASE}?limit=2`, ADMIN)
    assert.deepEqual(ids(page1), [d3, d2])
    assert.deepEqual(ids(await app.get(`${BASE}?limit=2&cursor=${page1.json().pagination.nextCursor}`, ADMIN)), [d1])
    for (const [query, param, words] of [['status=lost', 'status', /queued, delivered, failed/], ['eventType=user.created', 'eventType', /product\.updated/],
      ['resource=product:x', 'resource', /product:12/], ['since=yesterday', 'since', /24h/], ['credential=%3Cx%3E', 'credential', /credential id/]] as const) {
      const bad = await app.get(`${BASE}?${query}`, ADMIN)
      assert.equal(bad.statusCode, 400, query)
      assert.equal(bad.json().error.details[0].param, param)
      assert.match(bad.json().error.details[0].problem, words)
    }
    // Several bad ones are named together, and a day that does not exist is one of them.
    const several = await app.get(`${BASE}?status=bogus&since=yesterday&until=2030-02-31`, ADMIN)
    assert.equal(several.statusCode, 400)
    assert.deepEqual(several.json().error.details.map((d: { param: string }) => d.param), ['status', 'since', 'until'])
    assert.equal((await app.get(BASE)).statusCode, 401)

    // Replay by filter: the dead letters of the mug; queued ones are never taken.
    const replay = await app.post(`${BASE}/replay`, { filter: { status: 'failed', resource: `product:${mug.id}` } }, ADMIN)
    assert.equal(replay.statusCode, 200)
    assert.deepEqual(replay.json().data, { replayed: 1, mode: 'filter', ids: [d1] })
    await until(async () => (await statuses(app)).join() === 'delivered,failed,delivered', 'the replayed dead letter delivered')
    await until(async () => (await app.get(`${BASE}/${d1}`, ADMIN)).json().data.attemptLog.length === 3, 'the replayed attempt in the log')
    const again = (await app.get(`${BASE}/${d1}`, ADMIN)).json().data
    assert.equal(again.replayCount, 1)
    assert.deepEqual(again.attemptLog.map((a: { attempt: number; outcome: string }) => [a.attempt, a.outcome]), [[1, 'retrying'], [2, 'failed'], [1, 'delivered']])

    // One delivered delivery sent again; an unknown id is a 404; id and filter together a 400.
    const before = receiver.received.length
    assert.deepEqual((await app.post(`${BASE}/replay`, { id: d3 }, ADMIN)).json().data, { replayed: 1, mode: 'single', ids: [d3] })
    await receiver.waitFor((r) => r.length > before)
    assert.equal((await app.post(`${BASE}/replay`, { id: 999999 }, ADMIN)).statusCode, 404)
    const both = await app.post(`${BASE}/replay`, { id: d1, filter: {} }, ADMIN)
    assert.equal(both.statusCode, 400)
    assert.deepEqual(both.json().error.details.map((x: { param: string }) => x.param), ['id', 'filter'])
    const badFilter = await app.post(`${BASE}/replay`, { filter: { status: 'gone' } }, ADMIN)
    assert.equal(badFilter.json().error.details[0].param, 'filter.status')
    // Typed as JSON: a string id or a number in the filter is not coerced.
    const typed = await app.post(`${BASE}/replay`, { id: String(d1) }, ADMIN)
    assert.equal(typed.statusCode, 400)
    assert.equal(typed.json().error.details[0].param, 'id')
    assert.equal((await app.post(`${BASE}/replay`, { filter: { status: 5 } }, ADMIN)).json().error.details[0].param, 'filter.status')

    // Audited with the admin and the filter as given.
    const audit = (await listAudit(app.database.db, { action: 'replay', limit: 10 })).items
    assert.deepEqual(audit.map((r) => [r.summary, r.actor.type, r.actor.id]), [['Replayed 1 delivery (filter)', 'admin', 'admin-token'], ['Replayed 1 delivery (delivery)', 'admin', 'admin-token']])
    assert.deepEqual(audit[0].metadata.filter, { status: 'failed', resource: `product:${mug.id}` })
  })
}
