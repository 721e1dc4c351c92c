// The Policies screens (only while the control plane is on). Saving calls the control plane's
// operator path (policyChanges.byOperator), as the admin API's POST /control/policies/upsert
// does, with the signed-in admin as the audited actor: operators write policies directly,
// relaxing changes included (audited with what they relax). The simulator calls the control plane's
// simulate for the chosen credential, as POST /control/policy-simulate does; nothing is written.
import type { FastifyInstance } from 'fastify'
import { ApiError, invalid, invalidMany, notFound, type ErrorDetail } from '../kernel/errors.js'
import { flaggedBy } from '../store/validation.js'
import { policySpec } from '../control/policy-store.js'
import type { Actor } from '../control/actor.js'
import { actionTypes } from '../control/actions/action-registry.js'
import { builtInPolicy } from '../control/policy.js'
import { simulationView } from '../control/simulation-view.js'
import { EXECUTE_SCOPE } from '../control/evaluate-action.js'
import { fieldErrors, type FormWords } from './field-errors.js'
import { emptyPolicyForm, policyFormOf, policyWords, readPolicyForm, toPolicyBody } from './policy-form.js'
import { formOf, redirectWith, renderPage, sessionOf, type PanelContext } from './panel-context.js'
import { policyFormView, policyListView, SIMULATOR_FIELDS, simulatorView, type Simulation, type SimulatorValues } from './views/policy-views.js'

const HANDLE = /^[a-z0-9][a-z0-9._-]{0,99}$/

const simulatorWords: FormWords = {
  fieldOf: (param) => (param in SIMULATOR_FIELDS ? param : '(form)'),
  message: () => undefined,
}

export async function policyRoutes(panel: FastifyInstance, ctx: PanelContext): Promise<void> {
  const { control, credentials, settings } = ctx.services
  const formOpts = () => ({ actions: actionTypes(), scopes: ctx.services.scopes.enabled(settings).filter((x) => !x.deprecatedFor).map((x) => x.scope) })

  panel.get('/policies', { config: { screen: { title: 'Policies', order: 80 } } }, async (request, reply) =>
    renderPage(ctx, request, reply, { title: 'Policies' }, policyListView([...(await control.policies.list()), builtInPolicy])))

  panel.get('/policies/new', async (request, reply) =>
    renderPage(ctx, request, reply, { title: 'New policy' }, policyFormView(sessionOf(request), emptyPolicyForm, { editing: false, ...formOpts() })))

  panel.get('/policies/:handle/edit', async (request, reply) => {
    const handle = (request.params as { handle: string }).handle
    if (!HANDLE.test(handle)) throw invalid('handle', 'not a policy handle')
    const policy = (await control.policies.list()).find((p) => p.handle === handle)
    if (!policy) throw notFound(`No policy ${handle}`)
    return renderPage(ctx, request, reply, { title: `Edit ${handle}` }, policyFormView(sessionOf(request), policyFormOf(policy), { editing: true, ...formOpts() }))
  })

  panel.post('/policies', async (request, reply) => {
    const form = formOf(request)
    const values = readPolicyForm(form)
    const editing = form.get('editing') === '1'
    const by: Actor = { type: 'admin', id: sessionOf(request).username }
    try {
      // Every problem at once: the handle's, the fields' and the policy's own (a pattern that
      // matches no action, an unknown scope), never one kind per submit.
      const { body, problems } = toPolicyBody(values)
      // An edit must name a policy that exists; a new one must not replace one by accident.
      const exists = (await control.policies.list()).some((p) => p.handle === values.handle)
      if (editing && !exists) problems.unshift({ param: 'handle', problem: `there is no policy ${values.handle} any more` })
      if (!editing && exists) problems.unshift({ param: 'handle', problem: `a policy ${values.handle} exists already; edit it instead` })
      const flagged = flaggedBy(problems)
      problems.push(...control.policies.specProblems(policySpec(body)).filter((d) => !flagged(d.param)))
      if (problems.length > 0) throw invalidMany(problems)
      const { policy, created } = await control.policyChanges.byOperator(body, by, request.id)
      return await redirectWith(ctx, request, reply, { kind: 'ok', text: `${created ? 'Created' : 'Saved'} policy ${policy.handle}.` }, 'policies')
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'INVALID_REQUEST') throw err
      const problems = err.details && err.details.length > 0 ? err.details : [{ param: '(form)', problem: err.message }]
      const words: FormWords = { ...policyWords, message: (field, problem) => (/exists already|any more/.test(problem) ? undefined : policyWords.message(field, problem)) }
      return renderPage(ctx, request, reply, { title: editing ? `Edit ${values.handle}` : 'New policy' },
        policyFormView(sessionOf(request), values, { editing, ...formOpts() }, fieldErrors(problems, words)), 400)
    }
  })

  const simulatorOpts = async () => ({ actions: actionTypes(), credentials: await credentials.list() })

  panel.get('/policies/simulate', async (request, reply) => {
    const values: SimulatorValues = { actionType: actionTypes()[0] ?? '', credentialId: '', payload: '{}', approvalId: '' }
    return renderPage(ctx, request, reply, { title: 'Simulate an action' }, simulatorView(sessionOf(request), values, await simulatorOpts()))
  })

  panel.post('/policies/simulate', async (request, reply) => {
    const form = formOf(request)
    const text = (name: string) => (form.get(name) ?? '').trim()
    const values: SimulatorValues = { actionType: text('actionType'), credentialId: text('credentialId'), payload: text('payload'), approvalId: text('approvalId') }
    const problems: ErrorDetail[] = []
    if (!actionTypes().includes(values.actionType)) problems.push({ param: 'actionType', problem: `Choose one of the actions: ${actionTypes().join(', ')}.` })
    if (values.credentialId === '') problems.push({ param: 'credentialId', problem: 'Choose the credential whose execution you want to see.' })
    let payload: Record<string, unknown> = {}
    try {
      const parsed: unknown = JSON.parse(values.payload === '' ? '{}' : values.payload)
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object')
      payload = parsed as Record<string, unknown>
    } catch (err) {
      problems.push({ param: 'payload', problem: `Write the payload as a JSON object, such as {"variantId": 3, "price": 19.5} (${err instanceof SyntaxError ? err.message : 'this is not an object'}).` })
    }
    if (values.approvalId !== '' && !/^[A-Za-z0-9_-]{1,100}$/.test(values.approvalId)) problems.push({ param: 'approvalId', problem: 'An approval id looks like apr_…; leave it empty to simulate without one.' })
    // The credential is looked up whatever else is wrong, so a stale choice is named with the rest.
    const caller = values.credentialId === '' ? undefined : await credentials.callerFor(values.credentialId).catch((err: unknown) => {
      if (!(err instanceof ApiError) || err.code !== 'NOT_FOUND') throw err
      problems.push({ param: 'credentialId', problem: 'That credential no longer exists; choose another.' })
      return undefined
    })
    let result: Simulation | null = null
    if (problems.length === 0 && caller !== undefined) {
      try {
        const ev = await control.simulate(caller, { actionType: values.actionType, payload, ...(values.approvalId ? { approvalId: values.approvalId } : {}) })
        result = simulationView(ev, values.actionType, caller.scopes.has(EXECUTE_SCOPE))
      } catch (err) {
        if (!(err instanceof ApiError) || (err.code !== 'NOT_FOUND' && err.code !== 'INVALID_REQUEST')) throw err
        problems.push(...(err.details ?? [{ param: '(form)', problem: err.message }]))
      }
    }
    const body = simulatorView(sessionOf(request), values, await simulatorOpts(), fieldErrors(problems, simulatorWords), result)
    return renderPage(ctx, request, reply, { title: 'Simulate an action' }, body, problems.length > 0 ? 400 : 200)
  })
}
