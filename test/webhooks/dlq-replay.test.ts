// The dead-letter queue through the machine API: listing (status, limit, cursor), replay
// by id and of all, the result {replayed, mode, ids}, the 400/404 rules, the scopes, and
// what happens to a replayed item: delivered → it leaves the DLQ; failing again → failed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects, type TestApp } from '../helpers/test-app.js'
import { startReceiver } from './helpers/receiver.js'
import { until } from '../helpers/until.js'

const DLQ = '/gatehouse/v1/webhooks/dlq'
const REPLAY = '/gatehouse/v1/webhooks/dlq/replay'
const WORKER = { pollMs: 20, retryBaseMs: 20 }

const statuses = async (app: TestApp) =>
  (await app.database.db.selectFrom('webhook_deliveries').select(['id', 'status']).orderBy('id').execute()).map((r) => r.status as string)

for (const dialect of await testDialects()) {
  test(`${dialect}: dead letters are listed, replayed singly and all, and leave the queue once delivered`, async () => {
    let failing = true
    const receiver = await startReceiver('/hook', (_r, res) => { res.writeHead(failing ? 500 : 200).end() })
    const app = await buildTestApp({
      dialect, webhookWorker: WORKER,
      env: { PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 's3cret', PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS: '1' },
    })
    try {
      const { store } = app.services
      for (const slug of ['a', 'b', 'c']) await store.create('products', { type: 'mug', title: slug, slug })
      await until(async () => (await statuses(app)).join() === 'failed,failed,failed', 'three dead letters')
      const [id1, id2, id3] = (await app.database.db.selectFrom('webhook_deliveries').select('id').orderBy('id').execute()).map((r) => Number(r.id))

      const reader = await app.issueToken(['webhooks:dlq:read'])
      const replayer = await app.issueToken(['webhooks:dlq:replay'])
      const both = await app.issueToken(['webhooks:dlq:read', 'webhooks:dlq:replay'])

      // Scopes: each route needs its own, and the 403 names it.
      const noRead = await app.get(DLQ, replayer)
      assert.equal(noRead.statusCode, 403)
      assert.equal(noRead.json().error.code, 'FORBIDDEN')
      assert.equal(noRead.json().error.message, 'Missing required scope: webhooks:dlq:read')
      const noReplay = await app.post(REPLAY, { mode: 'all' }, reader)
      assert.equal(noReplay.statusCode, 403)
      assert.equal(noReplay.json().error.message, 'Missing required scope: webhooks:dlq:replay')
      assert.deepEqual(await statuses(app), ['failed', 'failed', 'failed'], 'a refused replay changes nothing')
      assert.equal((await app.get(DLQ)).statusCode, 401)

      // Listing.
      const list = await app.get(`${DLQ}?status=failed`, reader)
      assert.equal(list.statusCode, 200)
      const body = list.json()
      assert.equal(body.ok, true)
      assert.deepEqual(body.data.map((d: { id: number }) => d.id), [id1, id2, id3])
      const item = body.data[0]
      assert.equal(item.status, 'failed')
      assert.equal(item.kind, 'event')
      assert.equal(item.resourceType, 'product')
      assert.equal(item.action, 'created')
      assert.equal(item.attempts, 1)
      assert.equal(item.lastStatusCode, 500)
      assert.equal(item.routingMode, 'firehose')
      assert.match(item.eventId, /^evt_/)
      assert.equal(item.replayCount, 0)
      assert.equal('payload' in item || 'snapshot' in item || 'body' in item, false, 'payloads stay out of the machine API listing')
      const page1 = (await app.get(`${DLQ}?limit=2`, reader)).json()
      assert.deepEqual(page1.data.map((d: { id: number }) => d.id), [id1, id2])
      assert.equal(page1.pagination.hasMore, true)
      const page2 = (await app.get(`${DLQ}?limit=2&cursor=${encodeURIComponent(page1.pagination.nextCursor)}`, reader)).json()
      assert.deepEqual(page2.data.map((d: { id: number }) => d.id), [id3])
      assert.equal(page2.pagination.hasMore, false)
      assert.equal(page2.pagination.nextCursor, null)
      const otherQuery = await app.get(`${DLQ}?status=queued&cursor=${encodeURIComponent(page1.pagination.nextCursor)}`, reader)
      assert.equal(otherQuery.statusCode, 400)
      assert.equal(otherQuery.json().error.details[0].param, 'cursor')
      for (const bad of ['limit=0', 'limit=201', 'status=dead']) {
        const res = await app.get(`${DLQ}?${bad}`, reader)
        assert.equal(res.statusCode, 400, bad)
        assert.equal(res.json().error.code, 'INVALID_REQUEST')
        assert.equal(res.json().error.details[0].param, bad.split('=')[0])
      }
      assert.deepEqual((await app.get(`${DLQ}?status=queued`, reader)).json().data, [])

      // Replay input rules.
      const neither = await app.post(REPLAY, {}, replayer)
      assert.equal(neither.statusCode, 400)
      assert.equal(neither.json().error.code, 'INVALID_REQUEST')
      assert.deepEqual(neither.json().error.details.map((d: { param: string }) => d.param), ['id', 'mode'])
      assert.equal((await app.post(REPLAY, { mode: 'single' }, replayer)).statusCode, 400)
      assert.equal((await app.post(REPLAY, { mode: 'all', id: id1 }, replayer)).json().error.details[0].param, 'id')
      assert.equal((await app.post(REPLAY, { id: id1, limit: 5 }, replayer)).json().error.details[0].param, 'limit')
      assert.deepEqual((await app.post(REPLAY, { limit: 5 }, replayer)).json().error.details.map((d: { param: string }) => d.param), ['id', 'mode', 'limit'], 'limit without mode=all is named too')
      assert.equal((await app.post(REPLAY, { id: 'x' }, replayer)).json().error.details[0].param, 'id')
      assert.equal((await app.post(REPLAY, { mode: 'some' }, replayer)).json().error.details[0].param, 'mode')
      const unknown = await app.post(REPLAY, { id: 987654 }, replayer)
      assert.equal(unknown.statusCode, 404)
      assert.equal(unknown.json().error.code, 'NOT_FOUND')
      assert.deepEqual(await statuses(app), ['failed', 'failed', 'failed'])

      // Single replay to a healthy receiver: delivered, and it leaves the DLQ.
      failing = false
      const single = await app.post(REPLAY, { id: id1 }, replayer)
      assert.equal(single.statusCode, 200)
      assert.deepEqual(single.json().data, { replayed: 1, mode: 'single', ids: [id1] })
      await until(async () => (await statuses(app))[0] === 'delivered', 'the replayed item delivered')
      assert.deepEqual((await app.get(DLQ, reader)).json().data.map((d: { id: number }) => d.id), [id2, id3])
      assert.equal((await app.post(REPLAY, { id: id1 }, replayer)).statusCode, 404, 'a delivered item is no longer a dead letter')
      const firstEventId = item.eventId
      const redelivered = receiver.received.filter((r) => JSON.parse(r.body).id === firstEventId)
      assert.equal(redelivered.length, 2, 'the replay sent the same event again')
      assert.equal(redelivered[0].body, redelivered[1].body, 'byte for byte')

      // Replay all while no worker runs: the items wait as queued dead letters.
      await app.services.webhooks.stopWorker()
      failing = true
      const all = await app.post(REPLAY, { mode: 'all' }, both)
      assert.deepEqual(all.json().data, { replayed: 2, mode: 'all', ids: [id2, id3] })
      const queued = (await app.get(`${DLQ}?status=queued`, reader)).json().data
      assert.deepEqual(queued.map((d: { id: number; status: string; replayCount: number; attempts: number }) => [d.id, d.status, d.replayCount, d.attempts]),
        [[id2, 'queued', 1, 0], [id3, 'queued', 1, 0]])
      assert.ok(queued.every((d: { nextAttemptAt: string | null }) => d.nextAttemptAt !== null))
      assert.deepEqual((await app.post(REPLAY, { id: id2 }, both)).json().data, { replayed: 0, mode: 'single', ids: [] }, 'already queued: nothing to do')
      assert.deepEqual((await app.post(REPLAY, { mode: 'all' }, both)).json().data, { replayed: 0, mode: 'all', ids: [] })

      // They fail again and return to failed.
      const before = receiver.received.length
      app.services.webhooks.startWorker(WORKER)
      await until(async () => (await statuses(app)).join() === 'delivered,failed,failed', 'replayed items failed again')
      assert.equal(receiver.received.length, before + 2)
      const failedAgain = (await app.get(`${DLQ}?status=failed`, reader)).json().data
      assert.deepEqual(failedAgain.map((d: { id: number; replayCount: number; attempts: number }) => [d.id, d.replayCount, d.attempts]), [[id2, 1, 1], [id3, 1, 1]])

      // mode=all with a limit takes the oldest first.
      failing = false
      assert.deepEqual((await app.post(REPLAY, { mode: 'all', limit: 1 }, both)).json().data, { replayed: 1, mode: 'all', ids: [id2] })
      await until(async () => (await statuses(app)).join() === 'delivered,delivered,failed', 'limited replay delivered')
      assert.deepEqual((await app.post(REPLAY, { mode: 'all' }, both)).json().data, { replayed: 1, mode: 'all', ids: [id3] })
      await until(async () => (await statuses(app)).join() === 'delivered,delivered,delivered', 'everything delivered')
      assert.deepEqual((await app.get(DLQ, reader)).json().data, [], 'the DLQ is empty')
    } finally {
      await app.close()
      await receiver.close()
    }
  })
}
