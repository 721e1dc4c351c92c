// The rollback test of every governed action (STYLE: Medusa's failing-step test): a step
// that throws after the action's last write step leaves nothing of the action written (the
// record, the change log, webhook deliveries, the approval), the execution is recorded as
// failed with each step undone, and the audit log records the failure.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import type { Step } from '../../src/control/steps.js'
import { AGENT_SCOPES, CONTROL, DECIDER_SCOPES, controlApp, openPolicy, type ControlApp } from './helpers/control-app.js'

const WEBHOOKS = { PLUGIN_GATEHOUSE_WEBHOOK_URL: 'http://127.0.0.1:9/hooks', PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'control-test-secret' }

const failingStep: Step = {
  name: 'injectedFailure',
  preview: async () => [],
  async run() {
    throw new Error('injected failure after the last write step: SELECT secret FROM internals')
  },
}

/** Ids of the entries with `slug`. */
const slugIds = async (app: ControlApp, slug: string) =>
  (await app.database.db.selectFrom('entries').select('id').where('slug', '=', slug).execute()).map((r) => Number(r.id))

/** Everything an action could have written, to compare before and after. */
async function snapshot(app: ControlApp) {
  const all = async (table: string) => (await app.database.db.selectFrom(table).selectAll().orderBy('id').execute()).map((r) => JSON.stringify(r))
  return {
    entries: await all('entries'), drafts: await all('entry_drafts'), variants: await all('variants'), products: await all('products'),
    orders: await all('orders'), changes: await app.count('change_log'), deliveries: await app.count('webhook_deliveries'),
  }
}

for (const dialect of await testDialects()) {
  test(`${dialect}: a failure after the last step of each action rolls back every write and is recorded and audited`, async (t) => {
    const app = await controlApp(dialect, WEBHOOKS)
    t.after(() => app.close())
    await app.upsertPolicy(openPolicy('open', '*'))
    const agent = await app.token(AGENT_SCOPES)
    const auditor = await app.token(['control:audit:read'])
    const { variants: variantId, orders: orderId, entries: entryId } = app.ids
    // A draft to publish, made before the failures are injected.
    const draft = await app.execute(agent, { actionType: 'entry.updateDraft', payload: { entryId, name: 'to-publish', title: 'Published title' } })
    const draftId = draft.json().data.result.draftId as number

    const cases: [string, Record<string, unknown>, Record<string, string>][] = [
      ['entry.updateDraft', { entryId, name: 'new-draft', title: 'Draft title' }, { saveDraft: 'undone' }],
      ['entry.updateDraft', { entryId, name: 'to-publish', title: 'Changed draft title' }, { saveDraft: 'undone' }],
      // removeDraft has no undo (a record cannot be re-created with its id); the rollback restores it.
      ['entry.publishDraft', { draftId }, { applyDraft: 'undone', removeDraft: 'done' }],
      ['variant.setPrice', { variantId, price: 99 }, { setPrice: 'undone' }],
      ['variant.adjustStock', { variantId, delta: 7 }, { adjustStock: 'undone' }],
      ['order.setStatus', { orderId, status: 'cancelled' }, { setStatus: 'undone' }],
      ['order.refund', { orderId, amount: 10 }, { recordRefund: 'undone' }],
    ]
    app.services.control.testHooks.afterSteps = failingStep
    for (const [actionType, payload, steps] of cases) {
      const before = await snapshot(app)
      const res = await app.execute(agent, { actionType, payload })
      assert.equal(res.statusCode, 200, res.body)
      const execution = res.json().data
      assert.equal(execution.status, 'failed', `${actionType}: ${res.body}`)
      assert.deepEqual(execution.error, { code: 'INTERNAL_ERROR', message: 'The action failed and nothing was written; quote the execution id when reporting it' })
      assert.ok(!res.body.includes('SELECT'), 'the internal error is not disclosed')
      assert.deepEqual(execution.steps, [...Object.entries(steps).map(([name, status]) => ({ name, status })), { name: 'injectedFailure', status: 'failed' }])
      assert.equal(execution.result, null)
      assert.deepEqual(await snapshot(app), before, `${actionType}: nothing of the action stays written`)

      const audit = (await app.get(`${CONTROL}/audit?category=execution&entityId=${execution.id}`, auditor)).json().data
      assert.equal(audit.length, 1)
      assert.equal(audit[0].outcome, 'failure')
      assert.equal(audit[0].metadata.status, 'failed')
      assert.equal(audit[0].metadata.actionType, actionType)
    }
    // The same executions succeed once the failing step is gone.
    app.services.control.testHooks.afterSteps = undefined
    const ok = await app.execute(agent, { actionType: 'entry.publishDraft', payload: { draftId } })
    assert.equal(ok.json().data.status, 'succeeded')
    assert.equal((await app.services.store.get('entries', entryId))?.title, 'Published title')
  })

  test(`${dialect}: a failed execution does not consume its approval`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    const agent = await app.token(AGENT_SCOPES)
    const payload = { orderId: app.ids.orders, status: 'shipped' }
    const id = (await app.request(agent, 'order.setStatus', payload)).json().data.id
    await app.decide(await app.token(DECIDER_SCOPES), id, 'approve')
    await app.decide(await app.token(DECIDER_SCOPES), id, 'approve')
    app.services.control.testHooks.afterSteps = failingStep
    const failed = await app.execute(agent, { actionType: 'order.setStatus', payload, approvalId: id })
    assert.equal(failed.json().data.status, 'failed')
    const approval = (await app.get(`${CONTROL}/approvals?id=${id}`, agent)).json().data[0]
    assert.deepEqual([approval.status, approval.executionId], ['approved', null])
    app.services.control.testHooks.afterSteps = undefined
    const retried = await app.execute(agent, { actionType: 'order.setStatus', payload, approvalId: id })
    assert.equal(retried.json().data.status, 'succeeded')
    assert.equal((await app.services.store.get('orders', app.ids.orders))?.status, 'shipped')
  })
}

test('an action whose own write fails (a slug taken in the same transaction) records the failure with its reason and writes nothing', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  await app.upsertPolicy(openPolicy('open', '*'))
  const agent = await app.token(AGENT_SCOPES)
  const draft = await app.execute(agent, { actionType: 'entry.updateDraft', payload: { entryId: app.ids.entries, name: 'clash', slug: 'free-before-the-steps' } })
  const draftId = draft.json().data.result.draftId
  const before = await app.services.store.get('entries', app.ids.entries)
  // Another entry of the section takes the slug after the checks, before the publish writes:
  // the unique index refuses the action's own write.
  const section = before?.section as string
  app.services.control.testHooks.beforeSteps = {
    name: 'takeTheSlug', preview: async () => [],
    async run({ w }) { await w.create('entries', { section, type: before?.type, title: 'Rival', slug: 'free-before-the-steps' }) },
  }
  t.after(() => { app.services.control.testHooks.beforeSteps = undefined })
  const res = await app.execute(agent, { actionType: 'entry.publishDraft', payload: { draftId } })
  const execution = res.json().data
  assert.equal(execution.status, 'failed')
  assert.deepEqual(execution.error, { code: 'INVALID_REQUEST', message: 'Invalid parameter: slug (slug: already used by another record)' })
  assert.deepEqual(execution.steps, [{ name: 'takeTheSlug', status: 'done' }, { name: 'applyDraft', status: 'failed' }, { name: 'removeDraft', status: 'skipped' }])
  assert.deepEqual(await app.services.store.get('entries', app.ids.entries), before)
  assert.deepEqual(await slugIds(app, 'free-before-the-steps'), [], 'the rival written in the transaction is rolled back too')
  assert.ok(await app.services.store.get('entry-drafts', draftId), 'the draft is kept')
})

test('a publish whose slug another entry of the section holds is refused before anything runs, and simulation says so', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  await app.upsertPolicy(openPolicy('open', '*'))
  const agent = await app.token(AGENT_SCOPES)
  // draft-thoughts is the slug of another entry in the same section.
  const draft = await app.execute(agent, { actionType: 'entry.updateDraft', payload: { entryId: app.ids.entries, name: 'clash', slug: 'draft-thoughts' } })
  const draftId = draft.json().data.result.draftId
  const holder = (await slugIds(app, 'draft-thoughts'))[0]
  const section = (await app.services.store.get('entries', app.ids.entries))?.section
  const problem = { param: 'payload.draftId', problem: `the draft's slug draft-thoughts is already used by entry ${holder} in section ${section}` }
  const simulated = await app.post(`${CONTROL}/policy-simulate`, { actionType: 'entry.publishDraft', payload: { draftId } }, agent)
  assert.equal(simulated.json().data.decision, 'invalid', simulated.body)
  assert.deepEqual(simulated.json().data.payloadErrors, [problem])
  const executions = await app.count('control_executions')
  const res = await app.execute(agent, { actionType: 'entry.publishDraft', payload: { draftId } })
  assert.equal(res.statusCode, 400, res.body)
  assert.deepEqual(res.json().error.details, [problem])
  assert.equal(await app.count('control_executions'), executions, 'nothing is recorded')
})
