// The page of one approval (where an MCP agent's input-required result sends the user). For
// every governed action, as the registry lists them (an action added without a case here
// fails the test): each record the execution would write and each field now and after,
// computed by the action's own steps; the policy deciding it now, with its limits beside the
// request's values; who asks, with the source set by the server and the agent's name
// labelled as declared.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createAdmin } from '../../src/auth/admin-accounts.js'
import { actionTypes } from '../../src/control/actions/action-registry.js'
import { testDialects } from '../helpers/test-app.js'
import { AGENT_SCOPES, controlApp, openPolicy, type ControlApp } from '../control/helpers/control-app.js'
import { ADMIN_PASSWORD, ADMIN_USER, signedIn } from './helpers/panel-client.js'

const ENTITIES: Readonly<Record<string, string>> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#96;': '`' }
const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/&(amp|lt|gt|quot|#39|#96);/g, (e) => ENTITIES[e]).replace(/\s+/g, ' ').trim()

function section(body: string, id: string): string {
  const start = body.indexOf(`<section id="${id}">`)
  assert.ok(start >= 0, `the page has no section ${id}`)
  return body.slice(start, body.indexOf('</section>', start))
}

/** Table rows as the page shows them: the text of each cell. */
const rowsOf = (html: string) => [...html.matchAll(/<tr>(.*?)<\/tr>/gs)]
  .map((m) => [...m[1].matchAll(/<td data-label="[^"]*"><div>(.*?)<\/div><\/td>/gs)].map((c) => text(c[1])))
  .filter((cells) => cells.length > 0)

/** A timestamp of the last minute (a new entry's postDate is the moment it is published) reads `now`. */
const recent = (cell: string) => (/^"\d{4}-\d\d-\d\dT[\d:.]+Z"$/.test(cell) && Math.abs(Date.parse(JSON.parse(cell)) - Date.now()) < 60_000 ? 'now' : cell)

/** Each record the page says the execution would write: its heading, and its rows [field, now, after] sorted by field. */
function changesOf(body: string): { record: string; rows: string[][] }[] {
  return section(body, 'approval-changes').split('<h3 class="record-change">').slice(1).map((part) => ({
    record: text(part.slice(0, part.indexOf('</h3>'))),
    rows: rowsOf(part).map((cells) => cells.map(recent)).sort((a, b) => (a[0] < b[0] ? -1 : 1)),
  }))
}

/** The limits table: [limit, set by, largest allowed, this payload, result]. */
const limitsOf = (body: string) => rowsOf(section(body, 'approval-limits'))

interface Case {
  readonly actionType: string
  /** Requests the approval (after what it needs exists) and answers its id. */
  readonly request: () => Promise<string>
  readonly changes: () => { record: string; rows: string[][] }[]
  readonly limits: string[][]
  /** The policy line: who decides and its limits in words. */
  readonly policy: RegExp
}

for (const dialect of await testDialects()) {
  test(`${dialect}: every action's approval page shows each field it would write, now and after, and the deciding policy's limits beside the request's values`, async (t) => {
    const app: ControlApp = await controlApp(dialect)
    t.after(() => app.close())
    await createAdmin(app.services.database.db, ADMIN_USER, ADMIN_PASSWORD)
    const { ids } = app
    const agent = await app.token(AGENT_SCOPES)
    const policy = async (p: Record<string, unknown>) => assert.equal((await app.upsertPolicy(p)).statusCode, 200)
    await policy({ handle: 'prices', displayName: 'Prices', actionPattern: 'variant.setPrice', requiredApprovals: 1, limits: { maxPriceChangePercent: 50 } })
    await policy({ handle: 'stock', displayName: 'Stock', actionPattern: 'variant.adjustStock', requiredApprovals: 1, limits: { maxStockAdjustment: 5, allowNegativeStock: false } })
    await policy({ handle: 'refunds', displayName: 'Refunds', actionPattern: 'order.refund', requiredApprovals: 1, limits: { maxRefundAmount: 50 } })
    await policy(openPolicy('drafts', 'entry.updateDraft'))
    await policy({ handle: 'publish', displayName: 'Publishing', actionPattern: 'entry.publishDraft', requiredApprovals: 1 })
    const requested = async (actionType: string, payload: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const res = await app.request(agent, actionType, payload, extra)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data.id as string
    }
    const executed = async (actionType: string, payload: Record<string, unknown>) => {
      const res = await app.execute(agent, { actionType, payload })
      assert.equal(res.json().data?.status, 'succeeded', res.body)
      return res.json().data.result
    }
    // A draft of the first entry to publish, and one of a new entry.
    const { draftId } = await executed('entry.updateDraft', { entryId: ids.entries, name: 'spring', title: 'Hello spring', fields: { body: 'Spring post', topics: ['intro', 'news'] } })
    const fresh = await executed('entry.updateDraft', { entryId: null, name: 'launch', section: 'news', type: 'article', title: 'Launch', slug: 'launch', fields: { body: 'New' } })
    const json = JSON.stringify
    const agentId = (await app.services.credentials.authenticate(agent, '127.0.0.1')).credentialId
    const cases: Case[] = [{
      actionType: 'variant.setPrice',
      // An HTTP caller claiming to be MCP: the page shows the surface it came by, and the claim as a claim.
      request: () => requested('variant.setPrice', { variantId: ids.variants, price: 25 }, { metadata: { source: 'mcp', agentId: 'pricing-bot', traceId: 't-9' } }),
      changes: () => [{ record: `variants ${ids.variants}`, rows: [['price', '20', '25']] }],
      limits: [['maxPriceChangePercent', 'policy', '50', '25', 'within']],
      policy: /Decided by policy Prices prices \(actions variant\.setPrice\)\. Its limits: price change ≤ 50%\./,
    }, {
      actionType: 'variant.adjustStock',
      // What the family derives changes too: the last three in stock sold, it is no longer available.
      request: () => requested('variant.adjustStock', { variantId: ids.variants, delta: -3 }),
      changes: () => [{ record: `variants ${ids.variants}`, rows: [['isAvailable', 'true', 'false'], ['stock', '3', '0']] }],
      limits: [['maxStockAdjustment', 'policy', '5', '3', 'within'], ['stockFloor', "the action's own rule", '—', '0', 'within']],
      policy: /Its limits: stock adjustment ≤ 5; no negative stock\./,
    }, {
      actionType: 'order.setStatus',
      request: () => requested('order.setStatus', { orderId: ids.orders, status: 'shipped' }),
      changes: () => [{ record: `orders ${ids.orders}`, rows: [['status', '"processing"', '"shipped"']] }],
      limits: [],
      policy: /Decided by the built-in policy \(actions \*\)\. It sets no limits\./,
    }, {
      actionType: 'order.refund',
      request: () => requested('order.refund', { orderId: ids.orders, amount: 42, reason: 'returned' }),
      changes: () => [{ record: `orders ${ids.orders}`, rows: [['paidStatus', '"paid"', '"refunded"'], ['totalRefunded', '0', '42']] }],
      limits: [['maxRefundAmount', 'policy', '50', '42', 'within'], ['refundable', "the action's own rule", '42', '42', 'within']],
      policy: /Its limits: refund ≤ 50\./,
    }, {
      actionType: 'entry.updateDraft',
      request: () => requested('entry.updateDraft', { entryId: ids.entries, name: 'spring', title: 'Hello summer' }),
      changes: () => [{ record: `entry-drafts ${draftId}`, rows: [['title', '"Hello spring"', '"Hello summer"']] }],
      limits: [],
      policy: /Decided by policy Open entry\.updateDraft drafts/,
    }, {
      actionType: 'entry.updateDraft',
      // A draft that does not exist yet: created, with the values it would store.
      request: () => requested('entry.updateDraft', { entryId: ids.entries, name: 'autumn', fields: { body: 'Autumn post' } }),
      changes: () => [{ record: 'a new entry-drafts record: created', rows: [
        ['creatorId', '—', json(`credential:${agentId}`)], ['entryId', '—', String(ids.entries)], ['fields', '—', json({ body: 'Autumn post' })],
        ['name', '—', '"autumn"'], ['section', '—', '"news"'], ['slug', '—', '"hello-world"'], ['title', '—', '"Hello world"'], ['type', '—', '"article"'],
      ] }],
      limits: [],
      policy: /Decided by policy Open entry\.updateDraft drafts/,
    }, {
      actionType: 'entry.publishDraft',
      // The entry now, and the draft's content as approved; then the draft goes.
      request: () => requested('entry.publishDraft', { draftId }),
      changes: () => [
        { record: `entries ${ids.entries}`, rows: [['fields.body', '"First post"', '"Spring post"'], ['title', '"Hello world"', '"Hello spring"']] },
        { record: `entry-drafts ${draftId}: removed`, rows: [] },
      ],
      limits: [],
      policy: /Decided by policy Publishing publish \(actions entry\.publishDraft\)\. It sets no limits\./,
    }, {
      actionType: 'entry.publishDraft',
      request: () => requested('entry.publishDraft', { draftId: fresh.draftId }),
      changes: () => [
        { record: 'a new entries record: created', rows: [['fields', '—', json({ body: 'New' })], ['postDate', '—', 'now'], ['section', '—', '"news"'], ['slug', '—', '"launch"'], ['status', '—', '"live"'], ['title', '—', '"Launch"'], ['type', '—', '"article"']] },
        { record: `entry-drafts ${fresh.draftId}: removed`, rows: [] },
      ],
      limits: [],
      policy: /Decided by policy Publishing publish/,
    }]
    assert.deepEqual([...new Set(cases.map((c) => c.actionType))].sort(), [...actionTypes()].sort(), 'a case for every governed action')

    const admin = await signedIn(app)
    const pages: Record<string, string> = {}
    for (const c of cases) {
      const id = await c.request()
      const page = await admin.page(`/gatehouse/cp/approvals/${id}`)
      assert.equal(page.statusCode, 200)
      const shown = changesOf(page.body)
      assert.deepEqual(shown, c.changes(), `${c.actionType}: now and after`)
      assert.match(page.body, new RegExp(`<h2>${c.actionType.replace('.', '\\.')} on `))
      assert.deepEqual(limitsOf(page.body), c.limits, `${c.actionType}: the limits beside the request's values`)
      assert.match(text(section(page.body, 'approval-limits')), c.policy)
      if (c.limits.length === 0) assert.match(page.body, new RegExp(`No limit applies to ${c.actionType.replace('.', '\\.')}`))
      assert.match(page.body, /<form method="post" action="\/gatehouse\/cp\/approvals\/apr_[^"]+\/decide">/)
      pages[c.actionType] ??= id
    }
    const setPrice = await admin.page(`/gatehouse/cp/approvals/${pages['variant.setPrice']}`)
    assert.match(setPrice.body, /via api, which says it is <q>mcp<\/q>; agent name as declared by the client: <q>pricing-bot<\/q>/)

    // The limits shown are those the execution will apply: the policy tightened since the
    // request, the page shows the new limit, the request over it, and why.
    await policy({ handle: 'prices', displayName: 'Prices', actionPattern: 'variant.setPrice', requiredApprovals: 1, limits: { maxPriceChangePercent: 10 } })
    const tightened = await admin.page(`/gatehouse/cp/approvals/${pages['variant.setPrice']}`)
    assert.deepEqual(limitsOf(tightened.body), [['maxPriceChangePercent', 'policy', '10', '25', 'over 25% exceeds the policy limit maxPriceChangePercent of 10%']])

    // The draft changed after the publish request: the page says the approval no longer covers
    // it, and still shows the content as approved.
    await executed('entry.updateDraft', { entryId: ids.entries, name: 'spring', title: 'Hello summer' })
    const stale = await admin.page(`/gatehouse/cp/approvals/${pages['entry.publishDraft']}`)
    assert.match(text(section(stale.body, 'approval-changes')), new RegExp(`approval ${pages['entry.publishDraft']} covers draft ${draftId} as it was when approval was requested .*; draft ${draftId} has changed since`))
    assert.deepEqual(changesOf(stale.body)[0].rows.find((r) => r[0] === 'title'), ['title', '"Hello world"', '"Hello spring"'])

    // A record gone since: the page says what it cannot show.
    const goneId = await requested('variant.setPrice', { variantId: ids.variants, price: 21 })
    await app.services.store.remove('variants', ids.variants)
    const gone = await admin.page(`/gatehouse/cp/approvals/${goneId}`)
    assert.match(text(section(gone.body, 'approval-changes')), new RegExp(`What it would change cannot be shown: payload\\.variantId: no variants record with id ${ids.variants}`))
    assert.equal((await admin.page('/gatehouse/cp/approvals/apr_missing')).statusCode, 404)
  })
}
