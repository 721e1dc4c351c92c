// subscriptions/listen (2026-07-28) from the change feed: a v2 client listening on one
// process is told of a write committed through the other, with the feed position that
// GET /changes/position and /changes name; what the caller cannot read is not acknowledged
// and never delivered; without changes:read there is no subscription.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { testDialects } from '../helpers/test-app.js'
import { connectModern } from './helpers/mcp-modern-client.js'
import { twoProcesses } from './helpers/two-processes.js'

interface Updated { uri: string; _meta?: { position?: number } & Record<string, unknown> }

async function until<T>(what: string, fn: () => T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = fn()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

for (const dialect of await testDialects()) {
  test(`${dialect}: a subscription on one process sees a write committed through the other, with its feed position; unreadable URIs are not honoured`, async (t) => {
    const p = await twoProcesses(dialect)
    t.after(() => p.close())
    const token = await p.a.issueToken(['variants:read', 'changes:read'])
    const agent = await connectModern(p.a, token)
    const seen: Updated[] = []
    agent.client.setNotificationHandler('notifications/resources/updated', (n) => {
      seen.push(n.params as Updated)
    })
    const variant = `gatehouse://records/variants/${p.ids.variants}`
    const sub = await agent.client.listen({ resourceSubscriptions: [variant, 'gatehouse://records/variants', 'gatehouse://records/orders', 'gatehouse://nothing'] })
    assert.deepEqual(sub.honoredFilter.resourceSubscriptions, [variant, 'gatehouse://records/variants'], 'orders needs orders:read; unknown URIs are not honoured')

    await p.b.services.store.update('variants', p.ids.variants, { price: 77 })
    await p.b.services.store.update('orders', p.ids.orders, { email: 'someone@example.com' })
    const notes = await until('two notifications', () => (seen.length >= 2 ? seen : undefined))
    const feed = (await p.b.get(`${BASE_PATH}/changes?types=variants&limit=200`, token)).json().data as { position: number; resourceId: number }[]
    const change = feed.filter((c) => c.resourceId === p.ids.variants).at(-1)
    const newest = (await p.b.get(`${BASE_PATH}/changes/position`, await p.a.issueToken(['changes:read', 'variants:read', 'orders:read']))).json().data.position as number
    assert.deepEqual(notes.map((n) => n.uri).sort(), ['gatehouse://records/variants', variant])
    for (const n of notes) {
      // In _meta, where SDK clients keep it (they drop members the spec does not define from params).
      assert.equal(n._meta?.position, change?.position, 'the position is the feed\'s')
      assert.ok(n._meta?.position !== undefined && n._meta.position <= newest)
      assert.equal(n._meta?.['io.modelcontextprotocol/subscriptionId'] !== undefined, true)
    }
    await new Promise((r) => setTimeout(r, 600))
    assert.equal(seen.length, 2, 'nothing for the orders write')
    await sub.close()
    await agent.client.close()
  })
}

test('without changes:read a resource subscription is refused, naming the scope', async (t) => {
  const p = await twoProcesses('sqlite')
  t.after(() => p.close())
  const agent = await connectModern(p.a, await p.a.issueToken(['variants:read']))
  await assert.rejects(agent.client.listen({ resourceSubscriptions: ['gatehouse://records/variants'] }), /Missing required scope: changes:read/)
  await agent.client.close()
})
