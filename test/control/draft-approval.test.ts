// An approval of entry.publishDraft covers the draft's content, not only its id: the content
// (and its digest) is recorded when approval is requested and shown to deciders, and an
// update of the draft after that blocks the execution (simulation says so too), so content
// nobody reviewed is never published on the strength of an approval.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createAdmin } from '../../src/auth/admin-accounts.js'
import { testDialects } from '../helpers/test-app.js'
import { ADMIN_PASSWORD, ADMIN_USER, get, login } from '../panel/helpers/panel-client.js'
import { AGENT_SCOPES, CONTROL, DECIDER_SCOPES, controlApp, openPolicy, type ControlApp } from './helpers/control-app.js'

async function setUp(app: ControlApp) {
  // Drafts need no approval; publishing needs one.
  await app.upsertPolicy(openPolicy('drafts', 'entry.updateDraft'))
  await app.upsertPolicy({ handle: 'publish', displayName: 'Publish', actionPattern: 'entry.publishDraft', requiresApproval: true, requiredApprovals: 1 })
  return { agent: await app.token(AGENT_SCOPES), decider: await app.token(DECIDER_SCOPES) }
}

async function approvedPublish(app: ControlApp, agent: string, decider: string, draftId: number) {
  const req = await app.request(agent, 'entry.publishDraft', { draftId })
  assert.equal(req.statusCode, 200, req.body)
  const d = await app.decide(decider, req.json().data.id, 'approve')
  assert.equal(d.json().data.status, 'approved', d.body)
  return req.json().data
}

for (const dialect of await testDialects()) {
  test(`${dialect}: a draft updated after its publish approval was requested is not published with it`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    const { agent, decider } = await setUp(app)
    const entryId = app.ids.entries
    const saveDraft = (title: string, fields: Record<string, unknown>) =>
      app.execute(agent, { actionType: 'entry.updateDraft', payload: { entryId, name: 'rev', title, fields } })

    const created = await saveDraft('Reviewed title', { body: 'reviewed body' })
    assert.equal(created.json().data.status, 'succeeded', created.body)
    const { draftId } = created.json().data.result
    const approval = await approvedPublish(app, agent, decider, draftId)
    assert.equal(approval.reviewedState.subject, `draft ${draftId}`)
    assert.deepEqual([approval.reviewedState.content.title, approval.reviewedState.content.fields, approval.reviewedState.content.entryId], ['Reviewed title', { body: 'reviewed body' }, entryId])
    assert.match(approval.reviewedState.digest, /^[0-9a-f]{64}$/)

    // After the approval, the agent swaps the draft's content.
    assert.equal((await saveDraft('Unreviewed title', { body: 'unreviewed body' })).json().data.status, 'succeeded')
    const payload = { draftId }
    const sim = (await app.post(`${CONTROL}/policy-simulate`, { actionType: 'entry.publishDraft', payload, approvalId: approval.id }, agent)).json().data
    assert.equal(sim.decision, 'blocked')
    assert.deepEqual([sim.approval.payloadMatches, sim.approval.reviewedStateMatches, sim.approval.usable], [true, false, false])
    const blocked = await app.execute(agent, { actionType: 'entry.publishDraft', payload, approvalId: approval.id })
    assert.equal(blocked.json().data.status, 'blocked', blocked.body)
    assert.match(blocked.json().data.reasons.join(' '), new RegExp(`draft ${draftId} has changed since`))
    assert.equal((await app.services.store.get('entries', entryId))?.title, 'Hello world', 'nothing published')
    assert.equal((await app.services.store.get('entry-drafts', draftId))?.title, 'Unreviewed title')
    assert.equal((await app.get(`${CONTROL}/approvals?id=${approval.id}`, agent)).json().data[0].status, 'approved', 'not consumed')

    // Without an update after the request, the approved content is published.
    const second = await approvedPublish(app, agent, decider, draftId)
    assert.equal(second.reviewedState.content.title, 'Unreviewed title')
    const sim2 = (await app.post(`${CONTROL}/policy-simulate`, { actionType: 'entry.publishDraft', payload, approvalId: second.id }, agent)).json().data
    assert.deepEqual([sim2.decision, sim2.approval.reviewedStateMatches], ['execute', true])
    const published = await app.execute(agent, { actionType: 'entry.publishDraft', payload, approvalId: second.id })
    assert.equal(published.json().data.status, 'succeeded', published.body)
    const entry = await app.services.store.get('entries', entryId)
    assert.deepEqual([entry?.title, entry?.fields], ['Unreviewed title', { body: 'unreviewed body' }])
    // The first approval can no longer be used: its draft is gone.
    assert.equal((await app.execute(agent, { actionType: 'entry.publishDraft', payload, approvalId: approval.id })).statusCode, 400)
  })
}

test('the approvals screen shows deciders the draft content a publish approval covers', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const { agent } = await setUp(app)
  const draft = await app.execute(agent, { actionType: 'entry.updateDraft', payload: { entryId: app.ids.entries, name: 'rev', title: 'Shown <b>title</b>' } })
  const req = await app.request(agent, 'entry.publishDraft', { draftId: draft.json().data.result.draftId })
  await createAdmin(app.services.database.db, ADMIN_USER, ADMIN_PASSWORD)
  const page = await get(app, '/gatehouse/cp/approvals', await login(app))
  const card = page.body.slice(page.body.indexOf(`id="approval-${req.json().data.id}"`))
  assert.match(card, /Content approved: draft \d+ as it was at the request/)
  assert.match(card, /Shown &lt;b&gt;title&lt;\/b&gt;/)
  assert.ok(card.includes(req.json().data.reviewedState.digest))
})
