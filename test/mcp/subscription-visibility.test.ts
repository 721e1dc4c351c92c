// A subscription (subscriptions/listen, 2026-07-28) delivers what the caller's change feed
// shows, because it reads that feed as the caller. Owner visibility: a content block is
// visible only while its entry is (an entry other than live needs entries:read_all_statuses);
// a change to a block the caller cannot see reaches it as the feed shows it, a delete without
// a snapshot, and never with its content. The read boundary of an open run: a change outside
// it (another section, an entry not named, another product's variant) gives no notification,
// one inside does; when the run ends, the boundary does too.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { TestApp } from '../helpers/test-app.js'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { untilValue } from '../helpers/until.js'
import { dataOf } from '../admin/helpers/admin-client.js'
import { jobsApp } from '../jobs/helpers/jobs-app.js'
import { structured } from './helpers/mcp-client.js'
import { connectModern, type ModernConnection } from './helpers/mcp-modern-client.js'

interface Updated { uri: string; _meta?: { position?: number } }

/** An agent listening to `uris`; `seen` fills as notifications arrive. */
async function listening(app: TestApp, token: string, uris: string[]) {
  const agent = await connectModern(app, token)
  const seen: Updated[] = []
  agent.client.setNotificationHandler('notifications/resources/updated', (n) => {
    seen.push(n.params as Updated)
  })
  const sub = await agent.client.listen({ resourceSubscriptions: uris })
  assert.deepEqual(sub.honoredFilter.resourceSubscriptions, uris)
  return { agent, seen, close: async () => { await sub.close(); await agent.client.close() } }
}

/** The feed item at `position`, as the agent reads it with list_changes. */
async function itemAt(agent: ModernConnection, types: string, position: number) {
  const page = structured(await agent.call('list_changes', { types, after: position - 1, limit: 1 }))
  assert.equal(page.data[0]?.position, position, 'the notified position is the feed\'s')
  return page.data[0] as { resourceId: number; action: string; snapshot: Record<string, unknown> | null }
}

const uri = (family: string, id?: number) => `gatehouse://records/${family}${id === undefined ? '' : `/${id}`}`

/** The notifications after the first `from`, once there are `n` of them. */
const arrived = (seen: Updated[], from: number, n: number) => untilValue(() => (seen.length >= from + n ? seen.slice(from) : undefined), `${n} notification(s)`, 10_000)

for (const dialect of await testDialects()) {
  test(`${dialect}: owner visibility: a block of an entry the caller cannot see arrives as the feed's delete, without its content; with the scope to see it, as its update`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    const { ids } = await seedSmallCatalog(app.services.store)
    const store = app.services.store
    const pending = (await app.database.db.selectFrom('entries').select('id').where('status', '=', 'pending').executeTakeFirstOrThrow()).id as number
    const hiddenBlock = (await store.create('content-blocks', { ownerId: pending, fieldId: 1, type: 'text', sortOrder: 0, fields: { text: 'Secret launch copy' } })).id as number
    const shownBlock = ids['content-blocks']
    const uris = [uri('content-blocks'), uri('content-blocks', hiddenBlock), uri('content-blocks', shownBlock)]
    const reader = await listening(app, await app.issueToken(['contentblocks:read', 'entries:read', 'changes:read']), uris)
    const editor = await listening(app, await app.issueToken(['contentblocks:read', 'entries:read', 'entries:read_all_statuses', 'changes:read']), uris)

    // A change to the block of the pending entry, then one to the block of the live entry.
    await store.update('content-blocks', hiddenBlock, { fields: { text: 'Secret launch copy, v2' } })
    await store.update('content-blocks', shownBlock, { fields: { text: 'Block, v2' } })
    for (const who of [reader, editor]) {
      const notes = await arrived(who.seen, 0, 4)
      assert.deepEqual(notes.map((n) => n.uri), [uri('content-blocks'), uri('content-blocks', hiddenBlock), uri('content-blocks'), uri('content-blocks', shownBlock)])
    }
    const [hiddenAt, shownAt] = [reader.seen[1]._meta?.position as number, reader.seen[3]._meta?.position as number]
    const hidden = await itemAt(reader.agent, 'contentblocks', hiddenAt)
    assert.deepEqual([hidden.resourceId, hidden.action, hidden.snapshot], [hiddenBlock, 'deleted', null], 'the reader is told it is not in its view, not what it says')
    const shown = await itemAt(reader.agent, 'contentblocks', shownAt)
    assert.deepEqual([shown.action, shown.snapshot?.fields], ['updated', { text: 'Block, v2' }])
    const seenByEditor = await itemAt(editor.agent, 'contentblocks', hiddenAt)
    assert.deepEqual([seenByEditor.action, seenByEditor.snapshot?.fields], ['updated', { text: 'Secret launch copy, v2' }])
    // Reading the record the notification names is refused to the reader as any read of it is.
    await assert.rejects(reader.agent.client.readResource({ uri: uri('content-blocks', hiddenBlock) }), /not found|No content-blocks record/i)

    // The live entry is unpublished: its block leaves the reader's view, and the reader is told.
    await store.update('entries', ids.entries, { status: 'disabled' })
    const [left] = await arrived(reader.seen, 4, 2).then((n) => n.filter((x) => x.uri === uri('content-blocks', shownBlock)))
    const gone = await itemAt(reader.agent, 'contentblocks', left._meta?.position as number)
    assert.deepEqual([gone.resourceId, gone.action, gone.snapshot], [shownBlock, 'deleted', null])
    const kept = await itemAt(editor.agent, 'contentblocks', left._meta?.position as number)
    assert.deepEqual([kept.action, kept.snapshot?.fields], ['updated', { text: 'Block, v2' }])
    await reader.close()
    await editor.close()
  })

  test(`${dialect}: read boundary: while a bounded run is open, a change outside it arrives as the feed's delete, without its content; inside, as itself; when the run ends, as itself again`, async (t) => {
    const app = await jobsApp(dialect, { start: '2025-06-02T08:30:00Z' })
    t.after(() => app.close())
    const { ids } = await seedSmallCatalog(app.services.store)
    const store = app.services.store
    await store.create('sections', { handle: 'blog', name: 'Blog', type: 'channel', entryTypes: [{ handle: 'post', name: 'Post' }] })
    const elsewhere = (await store.create('entries', { section: 'blog', type: 'post', title: 'Elsewhere', slug: 'elsewhere' })).id as number
    const named = (await store.create('entries', { section: 'blog', type: 'post', title: 'Named by id', slug: 'named' })).id as number
    const [inside, outside] = (await app.database.db.selectFrom('products').select('id').orderBy('id').execute()).map((r) => Number(r.id))
    const variantOf = async (productId: number) => Number((await app.database.db.selectFrom('variants').select('id').where('product_id', '=', productId).orderBy('id').executeTakeFirstOrThrow()).id)
    const [insideVariant, outsideVariant] = [await variantOf(inside), await variantOf(outside)]

    const w = await app.worker(['jobs:read', 'jobs:report', 'entries:read', 'variants:read', 'changes:read'])
    const wf = await app.define({ name: 'News and shirts', credentialId: w.id, boundary: { sections: ['news'], entryIds: [named], productIds: [inside] } })
    app.clock.set('2025-06-02T09:01:00Z')
    const run = dataOf(await app.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'sync' }))
    const agent = await listening(app, w.token, [uri('entries'), uri('variants')])

    // Outside: another product's variant, an entry of another section that is not named.
    await store.update('variants', outsideVariant, { price: 51 })
    await store.update('entries', elsewhere, { title: 'Elsewhere, edited' })
    // Inside: the shirt's variant, an entry of the news section, the blog entry named by id.
    await store.update('variants', insideVariant, { price: 19 })
    await store.update('entries', ids.entries, { title: 'Hello again' })
    await store.update('entries', named, { title: 'Named, edited' })
    const notes = (await arrived(agent.seen, 0, 5)).filter((n) => n.uri === uri('variants') || n.uri === uri('entries'))
    const items = await Promise.all(notes.map(async (n) => {
      const type = n.uri.includes('variants') ? 'variants' : 'entries'
      const item = await itemAt(agent.agent, type, n._meta?.position as number)
      return [type, item.resourceId, item.action, item.snapshot === null ? 'null' : 'doc']
    }))
    // Outside the boundary is outside the worker's view now: told to drop what it may hold, not what changed.
    assert.deepEqual(items, [['variants', outsideVariant, 'deleted', 'null'], ['entries', elsewhere, 'deleted', 'null'],
      ['variants', insideVariant, 'updated', 'doc'], ['entries', ids.entries, 'updated', 'doc'], ['entries', named, 'updated', 'doc']])

    // The run ends: the boundary with it.
    dataOf(await app.report(w.token, { workflowId: wf.id, status: 'succeeded', runId: run.id, workerId: 'sync' }))
    const before = agent.seen.length
    await store.update('variants', outsideVariant, { price: 52 })
    const [after] = await arrived(agent.seen, before, 1)
    assert.equal((await itemAt(agent.agent, 'variants', after._meta?.position as number)).resourceId, outsideVariant)
    await agent.close()
  })
}
