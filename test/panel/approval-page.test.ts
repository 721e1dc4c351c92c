// The page of one approval (where an MCP agent's input-required result sends the user): what
// will change, field by field, now and after; the target, the policy, and who asks, with the
// source set by the server and the agent's name labelled as declared.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { panelApp, signedIn } from './helpers/panel-client.js'

test('an approval\'s page shows the current and the new value of each field it changes, and who asks as recorded', async (t) => {
  const app = await panelApp({ PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' })
  t.after(() => app.close())
  const { ids } = await seedSmallCatalog(app.services.store)
  const agent = await app.issueToken(['control:approvals:request', 'control:approvals:read', 'variants:read'])
  const now = (await app.get(`/gatehouse/v1/variants/show?id=${ids.variants}`, agent)).json().data
  const requested = await app.post('/gatehouse/v1/control/approvals/request',
    { actionType: 'variant.setPrice', payload: { variantId: ids.variants, price: 21.5 }, metadata: { source: 'mcp', agentId: 'pricing-bot', traceId: 't-9' } }, agent)
  assert.equal(requested.statusCode, 200, requested.body)
  const stock = await app.post('/gatehouse/v1/control/approvals/request',
    { actionType: 'variant.adjustStock', payload: { variantId: ids.variants, delta: -2 }, metadata: { source: 'x', agentId: 'y', traceId: 'z' } }, agent)

  const admin = await signedIn(app)
  const page = await admin.page(`/gatehouse/cp/approvals/${requested.json().data.id}`)
  assert.equal(page.statusCode, 200)
  assert.match(page.body, new RegExp(`<h2>variant\\.setPrice on variants ${ids.variants}</h2>`))
  assert.match(page.body, new RegExp(`<code>price</code>.*?<code>${now.price}</code>.*?<code>21\\.5</code>`, 's'))
  // The HTTP caller said "mcp": the page shows the surface it came by, and its claim as a claim.
  assert.match(page.body, /via api, which says it is <q>mcp<\/q>; agent name as declared by the client: <q>pricing-bot<\/q>/)
  assert.match(page.body, /<form method="post" action="\/gatehouse\/cp\/approvals\/apr_[^"]+\/decide">/)
  const stockPage = await admin.page(`/gatehouse/cp/approvals/${stock.json().data.id}`)
  assert.match(stockPage.body, new RegExp(`<code>stock</code>.*?<code>${now.stock}</code>.*?<code>${now.stock - 2}</code>`, 's'))
  assert.equal((await admin.page('/gatehouse/cp/approvals/apr_missing')).statusCode, 404)
})
