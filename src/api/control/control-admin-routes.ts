// The control plane on the admin API (/gatehouse/admin/v1/control, admin token or a
// control-panel session): the seam through which people decide approvals and write policies
// (operators change policies directly, relaxing ones included: policy-governance.ts), the
// simulator for any credential, plus what the panel shows beside them (approvals, audit log,
// chain verification). Served only while PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL is on, like the
// machine-API side.
import { Type, type Static } from '@sinclair/typebox'
import { invalid } from '../../kernel/errors.js'
import { sendAdminData, type AdminRoutes } from '../admin/admin-route.js'
import { listAudit, verifyAudit } from '../../control/audit-log.js'
import type { Actor } from '../../control/actor.js'
import { ActionType, AdminDecideBody, APPROVAL_STATUSES, Cursor, Limit, Payload, PolicyFields } from '../../control/control-schemas.js'
import { builtInPolicy } from '../../control/policy.js'
import { simulationView } from '../../control/simulation-view.js'
import { EXECUTE_SCOPE } from '../../control/evaluate-action.js'
import { assertValid } from '../../store/validation.js'
import type { ApprovalStatus } from '../../control/approval-store.js'

const ApprovalId = /^[A-Za-z0-9_-]{1,100}$/

const AdminApprovalsQuery = Type.Object({
  status: Type.Optional(Type.Union(APPROVAL_STATUSES.map((s) => Type.Literal(s)))),
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Cursor),
}, { additionalProperties: false })

const AdminAuditQuery = Type.Object({ limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) }, { additionalProperties: false })

export const AdminSimulateBody = Type.Object({
  credentialId: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$', description: 'The credential whose execution is simulated' }),
  actionType: ActionType,
  payload: Payload,
  approvalId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
}, { additionalProperties: false })

export const controlAdminRoutes: AdminRoutes = (admin, { services }) => {
  if (!services.settings.writesExperimental) return
  const { control, cursors } = services

  admin.get('/control/approvals', { schema: { querystring: AdminApprovalsQuery } }, async (request, reply) => {
    const q = request.query as Static<typeof AdminApprovalsQuery>
    let before: { createdAt: number; id: string } | undefined
    if (q.cursor !== undefined) {
      const c = cursors.decode<{ s?: string | null; c?: number; i?: string }>(q.cursor)
      if (c.s !== (q.status ?? null) || typeof c.c !== 'number' || typeof c.i !== 'string') throw invalid('cursor', 'cursor belongs to another query')
      before = { createdAt: c.c, id: c.i }
    }
    const { items, hasMore } = await control.approvals.list({ status: q.status as ApprovalStatus | undefined, before, limit: q.limit ?? 50 })
    const last = items[items.length - 1]
    return reply.type('application/json; charset=utf-8').send({
      ok: true, data: items,
      pagination: { hasMore, nextCursor: hasMore && last ? cursors.encode({ s: q.status ?? null, c: Date.parse(last.createdAt), i: last.id }) : null },
      requestId: request.id,
    })
  })

  // A person's decision: the admin is the decider (the admin token counts as one decider).
  admin.post('/control/approvals/:id/decide', { schema: { body: AdminDecideBody } }, async (request, reply) => {
    const id = (request.params as { id?: string }).id ?? ''
    if (!ApprovalId.test(id)) throw invalid('id', 'not an approval id')
    const body = request.body as Static<typeof AdminDecideBody>
    const decider: Actor = { type: 'admin', id: request.admin?.id ?? 'admin' }
    return sendAdminData(reply, request, await control.decide(id, decider, body.decision, body.reason, request.id))
  })

  admin.get('/control/policies', async (request, reply) => sendAdminData(reply, request, [...(await control.policies.list()), builtInPolicy]))

  admin.post('/control/policies/upsert', { schema: { body: PolicyFields } }, async (request, reply) => {
    const actor: Actor = { type: 'admin', id: request.admin?.id ?? 'admin' }
    const { policy, created } = await control.policyChanges.byOperator(request.body as Static<typeof PolicyFields>, actor, request.id)
    return reply.type('application/json; charset=utf-8').send({ ok: true, data: policy, meta: { created }, requestId: request.id })
  })

  // What executing would do now as a credential (the panel's simulator); nothing is written.
  admin.post('/control/policy-simulate', async (request, reply) => {
    assertValid(AdminSimulateBody, request.body)
    const b = request.body as Static<typeof AdminSimulateBody>
    const caller = await services.credentials.callerFor(b.credentialId)
    const ev = await control.simulate(caller, { actionType: b.actionType, payload: b.payload, ...(b.approvalId ? { approvalId: b.approvalId } : {}) })
    return sendAdminData(reply, request, simulationView(ev, b.actionType, caller.scopes.has(EXECUTE_SCOPE)))
  })

  admin.get('/control/audit', { schema: { querystring: AdminAuditQuery } }, async (request, reply) => {
    const q = request.query as Static<typeof AdminAuditQuery>
    let afterId = 0
    if (q.cursor !== undefined) {
      const c = cursors.decode<{ a?: number }>(q.cursor)
      if (typeof c.a !== 'number') throw invalid('cursor', 'malformed cursor')
      afterId = c.a
    }
    const { items, hasMore } = await listAudit(services.database.db, { afterId, limit: q.limit ?? 50 })
    const last = items[items.length - 1]
    return reply.type('application/json; charset=utf-8').send({
      ok: true, data: items, pagination: { hasMore, nextCursor: hasMore && last ? cursors.encode({ a: last.id }) : null }, requestId: request.id,
    })
  })

  admin.get('/control/audit/verify', async (request, reply) => sendAdminData(reply, request, await verifyAudit(services.database.db)))
}
