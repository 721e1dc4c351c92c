// A credential holds at most STREAMS_PER_CREDENTIAL subscriptions/listen streams open: every
// commit wakes each stream, and one token's 4,000 streams made every other request wait
// seconds. Opening one more ends its oldest, gracefully; another credential's are untouched.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'
import { connectModern } from './helpers/mcp-modern-client.js'
import { STREAMS_PER_CREDENTIAL } from '../../src/mcp/change-subscriptions.js'

const PRODUCTS = 'gatehouse://records/products'
const pending = (p: Promise<string>) => Promise.race([p, new Promise<string>((resolve) => setTimeout(() => resolve('open'), 300))])

test(`a credential holds at most ${STREAMS_PER_CREDENTIAL} listen streams; one more ends its oldest`, async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const scopes = ['products:read', 'changes:read']
  const agent = await connectModern(app, await app.issueToken(scopes))
  const other = await connectModern(app, await app.issueToken(scopes))
  t.after(async () => { await agent.client.close(); await other.client.close() })

  const theirs = await other.client.listen({ resourceSubscriptions: [PRODUCTS] })
  const streams = []
  for (let i = 0; i < STREAMS_PER_CREDENTIAL; i++) streams.push(await agent.client.listen({ resourceSubscriptions: [PRODUCTS] }))
  assert.equal(await pending(streams[0].closed), 'open', 'up to the limit, all stay open')
  const newest = await agent.client.listen({ resourceSubscriptions: [PRODUCTS] })
  assert.equal(await streams[0].closed, 'graceful', 'the oldest ended as the server ends a stream')
  for (const s of [...streams.slice(1), newest, theirs]) assert.equal(await pending(s.closed), 'open')
  for (const s of [...streams.slice(1), newest, theirs]) await s.close()
})
