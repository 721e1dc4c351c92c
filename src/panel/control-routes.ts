// The Approvals and Audit screens, registered only while the control plane is on
// (PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL), like its admin API routes. Deciding calls the
// same ControlPlane.decide the admin API's decide route calls, with the signed-in admin
// as the decider; audit reads use listAudit and verifyAudit, as the admin API does.
import type { FastifyInstance } from 'fastify'
import { ApiError, invalid } from '../kernel/errors.js'
import { assertValid } from '../store/validation.js'
import { AdminDecideBody } from '../control/control-schemas.js'
import { listAudit, verifyAudit } from '../control/audit-log.js'
import type { Actor } from '../control/actor.js'
import { formOf, redirectWith, renderPage, sessionOf, type PanelContext } from './panel-context.js'
import { onlyParameters, wholeParameter } from './panel-query.js'
import { approvalPage, approvalsView, auditView } from './views/control-views.js'
import { approvalReview } from '../control/approval-review.js'

const PAGE = 50
const APPROVAL_ID = /^[A-Za-z0-9_-]{1,100}$/

export async function approvalRoutes(panel: FastifyInstance, ctx: PanelContext): Promise<void> {
  const { control } = ctx.services

  panel.get('/approvals', { config: { screen: { title: 'Approvals', order: 70 } } }, async (request, reply) => {
    const pending = await control.approvals.list({ status: 'pending', limit: PAGE })
    const recent = await control.approvals.list({ limit: PAGE * 2 })
    const history = recent.items.filter((a) => a.status !== 'pending').slice(0, PAGE)
    return renderPage(ctx, request, reply, { title: 'Approvals' }, approvalsView(sessionOf(request), pending.items, history))
  })

  // One approval: the page an MCP agent's input-required result points the user at.
  panel.get('/approvals/:id', async (request, reply) => {
    const id = (request.params as { id: string }).id
    if (!APPROVAL_ID.test(id)) throw invalid('id', 'not an approval id')
    const approval = await control.approvals.get(id)
    if (!approval) throw new ApiError('NOT_FOUND', `No approval ${id}`)
    const review = await approvalReview(approval, { store: ctx.services.store, policies: control.policies })
    return renderPage(ctx, request, reply, { title: `Approval ${id}` }, approvalPage(sessionOf(request), approval, review))
  })

  panel.post('/approvals/:id/decide', async (request, reply) => {
    const id = (request.params as { id: string }).id
    if (!APPROVAL_ID.test(id)) throw invalid('id', 'not an approval id')
    const form = formOf(request)
    const body = { decision: form.get('decision') ?? '', reason: (form.get('reason') ?? '').trim() }
    const decider: Actor = { type: 'admin', id: sessionOf(request).username }
    // Back to the approval, not the list: the decider tries again where they were.
    const here = `approvals/${id}`
    // Blank (spaces pass the browser's `required`): said in words, not as the schema's rule.
    if (body.reason === '') return redirectWith(ctx, request, reply, { kind: 'error', text: 'Give a reason: it is kept with your decision in the audit log.' }, here)
    let text: string
    try {
      assertValid(AdminDecideBody, body)
      const a = await control.decide(id, decider, body.decision as 'approve' | 'reject', body.reason, request.id)
      text = `${body.decision === 'approve' ? 'Approved' : 'Rejected'} ${a.actionType}: ${a.approvalsGiven} of ${a.requiredApprovals} approvals, now ${a.status}.`
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      const problems = err.details?.map((d) => `${d.param}: ${d.problem}`).join('; ')
      return redirectWith(ctx, request, reply, { kind: 'error', text: problems ? `${err.message} (${problems})` : err.message }, here)
    }
    return redirectWith(ctx, request, reply, { kind: 'ok', text }, 'approvals')
  })
}

export async function auditRoutes(panel: FastifyInstance, ctx: PanelContext): Promise<void> {
  const { db } = ctx.services.database

  panel.get('/audit', { config: { screen: { title: 'Audit', order: 90 } } }, async (request, reply) => {
    const verification = await verifyAudit(db)
    const head = verification.headSeq
    const given = wholeParameter(onlyParameters(request.query, ['from']), 'from')
    // Newest page by default; `from` is the id after which the page starts.
    const from = given !== undefined ? Math.min(given, head) : Math.max(0, head - PAGE)
    const { items } = await listAudit(db, { afterId: from, limit: PAGE })
    const nav = { older: from > 0 ? Math.max(0, from - PAGE) : null, newer: from + PAGE < head ? from + PAGE : null }
    return renderPage(ctx, request, reply, { title: 'Audit' }, auditView([...items].reverse(), verification, nav))
  })
}
