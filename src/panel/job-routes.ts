// The Jobs screens and actions: each calls the job runtime operation the admin API's workflow
// routes call (list, get, runs, create, pause, resume, delete), with the signed-in admin as
// the actor the audit log records. The create form is read into the admin API's body and
// checked by the same schema, so a problem is shown beside the field it concerns.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError, type ErrorDetail } from '../kernel/errors.js'
import { workflowId } from '../api/jobs/job-admin-routes.js'
import { flaggedBy } from '../store/validation.js'
import type { JobActor } from '../jobs/job-context.js'
import type { WorkflowView } from '../jobs/workflow.js'
import type { BoundaryAxis } from '../resources/boundary-axes.js'
import { formOf, redirectWith, renderPage, sessionOf, type PanelContext } from './panel-context.js'
import { fieldErrors } from './field-errors.js'
import { jobWords, templateProblem } from './job-form.js'
import { confirmDeleteView, emptyJobForm, jobDetailView, jobFormView, jobsListView, type JobFormValues } from './views/job-views.js'

const admin = (request: FastifyRequest): JobActor => ({ type: 'admin', id: sessionOf(request).username, requestId: request.id })

function readJobForm(form: URLSearchParams, axes: readonly BoundaryAxis[]): JobFormValues {
  const text = (name: string) => (form.get(name) ?? '').trim()
  return {
    name: text('name'), templateKey: text('templateKey'), credentialId: text('credentialId'), cron: text('cron'), timezone: text('timezone'),
    boundary: Object.fromEntries(axes.map((a) => [a.name, text(a.name)])), config: text('config'),
  }
}

const list = (text: string) => text.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean)

/** The admin API's create body from the form, and the problems only the form can have (ids, JSON). */
function toBody(v: JobFormValues, axes: readonly BoundaryAxis[]): { body: Record<string, unknown>; problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = []
  const ids = (param: string, text: string) => list(text).flatMap((x) => {
    if (/^[1-9]\d{0,15}$/.test(x)) return [Number(x)]
    problems.push({ param, problem: `"${x.slice(0, 40)}" is not a positive integer id` })
    return []
  })
  // Any boundary field given sends every axis, the empty ones as empty lists.
  const anyBoundary = axes.some((a) => (v.boundary[a.name] ?? '') !== '')
  const boundary = Object.fromEntries(axes.map((a) => {
    const text = v.boundary[a.name] ?? ''
    return [a.name, a.values === 'id' ? ids(`boundary.${a.name}`, text) : list(text)]
  }))
  let config: unknown
  if (v.config !== '') {
    try {
      config = JSON.parse(v.config) as unknown
    } catch {
      problems.push({ param: 'config', problem: 'not valid JSON' })
    }
  }
  const body = {
    name: v.name, templateKey: v.templateKey, credentialId: v.credentialId, schedule: { cron: v.cron, timezone: v.timezone },
    ...(anyBoundary ? { boundary } : {}),
    ...(config !== undefined ? { config } : {}),
  }
  return { body, problems }
}

async function allWorkflows(ctx: PanelContext): Promise<WorkflowView[]> {
  const out: WorkflowView[] = []
  let after: { createdAt: number; id: string } | undefined
  for (;;) {
    const { items, hasMore } = await ctx.services.jobs.list({ after, limit: 200 })
    out.push(...items)
    const last = items[items.length - 1]
    if (!hasMore || !last) return out
    after = { createdAt: Date.parse(last.createdAt), id: last.id }
  }
}

export async function jobRoutes(panel: FastifyInstance, ctx: PanelContext): Promise<void> {
  const { jobs, credentials } = ctx.services
  const axes = ctx.services.resources.boundaryAxes
  const words = jobWords(axes)
  const page = { title: 'Jobs' } as const
  const usable = async () => (await credentials.list()).filter((c) => c.status !== 'revoked')
  const labels = async () => new Map((await credentials.list()).map((c) => [c.id, c.label]))

  panel.get('/jobs', { config: { screen: { title: 'Jobs', order: 50 } } }, async (request, reply) =>
    renderPage(ctx, request, reply, page, jobsListView(sessionOf(request), await allWorkflows(ctx), jobs.overdueGraceMs / 1000, await labels())))

  panel.get('/jobs/new', async (request, reply) =>
    renderPage(ctx, request, reply, { ...page, title: 'Create workflow' }, jobFormView(sessionOf(request), await usable(), axes, emptyJobForm)))

  panel.post('/jobs', async (request, reply) => {
    const values = readJobForm(formOf(request), axes)
    const { body, problems } = toBody(values, axes)
    const template = templateProblem(values.templateKey)
    if (template) problems.push(template)
    try {
      // With the form's own problems, also those create would name (the schema's, the
      // schedule's, the credential's, the boundary's) of the other fields: every field's
      // problem shows at once, none waits for a second submit.
      if (problems.length > 0) {
        const flagged = flaggedBy(problems)
        throw new ApiError('INVALID_REQUEST', 'Invalid form', [...problems, ...(await jobs.createProblems(body)).filter((d) => !flagged(d.param))])
      }
      const w = await jobs.create(body, admin(request))
      return redirectWith(ctx, request, reply, { kind: 'ok', text: `Created workflow ${w.name}; next due ${w.nextDueAt ?? 'never'}.` }, `jobs/${w.id}`)
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'INVALID_REQUEST') throw err
      const shown = err.details && err.details.length > 0 ? err.details : [{ param: '(form)', problem: err.message }]
      return renderPage(ctx, request, reply, { ...page, title: 'Create workflow' }, jobFormView(sessionOf(request), await usable(), axes, values, fieldErrors(shown, words)), 400)
    }
  })

  panel.get('/jobs/:id', async (request, reply) => {
    const id = workflowId(request.params)
    const w = await jobs.get(id)
    const { items } = await jobs.runs(id, 50)
    return renderPage(ctx, request, reply, { ...page, title: w.name }, jobDetailView(sessionOf(request), w, items, axes, await labels()))
  })

  for (const action of ['pause', 'resume'] as const) {
    panel.post(`/jobs/:id/${action}`, async (request, reply) => {
      const id = workflowId(request.params)
      const w = action === 'pause' ? await jobs.pause(id, admin(request)) : await jobs.resume(id, admin(request))
      return redirectWith(ctx, request, reply, { kind: 'ok', text: `${w.name}: now ${w.status}${w.nextDueAt ? `; next due ${w.nextDueAt}` : ''}.` }, `jobs/${w.id}`)
    })
  }

  panel.get('/jobs/:id/confirm/delete', async (request, reply) => {
    const w = await jobs.get(workflowId(request.params))
    return renderPage(ctx, request, reply, { title: 'Confirm' }, confirmDeleteView(sessionOf(request), w))
  })

  panel.post('/jobs/:id/delete', async (request, reply) => {
    const id = workflowId(request.params)
    const w = await jobs.get(id)
    await jobs.delete(id, admin(request))
    return redirectWith(ctx, request, reply, { kind: 'ok', text: `Deleted workflow ${w.name}.` }, 'jobs')
  })
}
