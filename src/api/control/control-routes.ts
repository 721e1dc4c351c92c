// The control plane on the machine API (DESIGN §8): policies, approvals, simulation,
// execution and the audit log under /control, all behind PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL
// (the machine API plugin answers 404 after authentication while it is off).
import { Type, type Static } from '@sinclair/typebox'
import { ApiError, invalid } from '../../kernel/errors.js'
import { queryDigest } from '../../kernel/cursor.js'
import { pageInOrder, pageParams } from '../../kernel/list-page.js'
import type { MachineRoute, RouteContext } from '../../kernel/machine-route.js'
import type { Services } from '../../operations/services.js'
import { listAudit } from '../../control/audit-log.js'
import { credentialActor } from '../../control/actor.js'
import { seesAll, type ControlPlane } from '../../control/control-plane.js'
import { EXECUTE_SCOPE } from '../../control/evaluate-action.js'
import { simulationView } from '../../control/simulation-view.js'
import { executeAsReader, requestApprovalAsReader, simulateAsReader } from '../../operations/simulate-action.js'
import { IDEMPOTENCY_KEY } from '../../control/execute-action.js'

/** The execute route's Idempotency-Key, as the server checks it and the contract declares it. */
const IdempotencyKeyHeader = Type.String({
  minLength: 1, maxLength: 200, pattern: IDEMPOTENCY_KEY.source,
  description: '1–200 characters of A-Z a-z 0-9 . _ : -, a key of your choosing that identifies this execution',
})
import { ApprovalRequestBody, ApprovalSchema, ApprovalsQuery, AuditQuery, AuditRecordSchema, DecideBody, ExecuteBody, ExecutionSchema, ExecutionsQuery, PolicySchema, PolicyUpsertBody, SimulateBody, SimulationSchema } from '../../control/control-schemas.js'
import { builtInPolicy } from '../../control/policy.js'
import { actionTypes } from '../../control/actions/action-registry.js'
import { POLICY_UPSERT } from '../../control/policy-governance.js'
import { literals } from '../../control/control-schemas.js'

// actionType filters are enumerations (the registered actions; approvals also policy.upsert),
// so an unknown one is a 400 listing them rather than an empty page.
const ListedApprovalsQuery = Type.Object({ ...ApprovalsQuery.properties, actionType: Type.Optional(literals([...actionTypes(), POLICY_UPSERT], 'A registered action, or policy.upsert')) }, { additionalProperties: false })
const ListedExecutionsQuery = Type.Object({ ...ExecutionsQuery.properties, actionType: Type.Optional(literals(actionTypes(), 'A registered action')) }, { additionalProperties: false })

const common = { flag: 'writesExperimental' } as const

/** Keyset cursors of the newest-first lists (approvals, executions), bound to their query. */
function newestFirstCursor(services: Services, query: Record<string, unknown>) {
  const { cursor: _cursor, limit: _limit, ...filters } = query
  const digest = queryDigest(filters)
  let before: { createdAt: number; id: string } | undefined
  if (query.cursor !== undefined) {
    const c = services.cursors.decode<{ q?: string; c?: number; i?: string }>(query.cursor as string)
    if (c.q !== digest || typeof c.c !== 'number' || typeof c.i !== 'string') throw invalid('cursor', 'cursor belongs to another query; repeat the parameters of the first page')
    before = { createdAt: c.c, id: c.i }
  }
  const page = <T extends { id: string; createdAt: string }>(items: readonly T[], hasMore: boolean) => {
    const last = items[items.length - 1]
    return { hasMore, nextCursor: hasMore && last ? services.cursors.encode({ q: digest, c: Date.parse(last.createdAt), i: last.id }) : null }
  }
  return { before, page }
}

export function controlRoutes(services: Services): MachineRoute[] {
  const control: ControlPlane = services.control
  return [
    {
      ...common, method: 'GET', path: '/control/policies', key: 'control.policies.list', tag: 'control-policies', scope: 'control:policies:read',
      summary: 'Policies by handle, then the built-in policy that applies when none matches',
      querystring: Type.Object(pageParams, { additionalProperties: false }), data: Type.Array(PolicySchema), list: true, errors: ['INVALID_REQUEST'],
      handler: async ({ query }) => ({
        // Read whole (a site has a handful) and paged in that order, keyed by handle.
        ...pageInOrder([...(await control.policies.list()), builtInPolicy], (p) => p.handle, { cursors: services.cursors, filters: {}, cursor: query.cursor, limit: query.limit }),
        meta: { mode: 'full' },
      }),
    },
    {
      ...common, method: 'POST', path: '/control/policies/upsert', key: 'control.policies.upsert', tag: 'control-policies', scope: 'control:policies:write',
      summary: 'Create or replace a policy by handle (fields left out take their defaults); a change that relaxes control needs an approved policy.upsert approval; audited',
      description: 'A change that relaxes control (no approval, fewer approvals, a longer approval TTL, a lower risk, a scope no longer required, a higher or removed limit, a blocked action unblocked, a pattern now covering actions a stricter policy decided) answers 409 CONFLICT with one detail per relaxation. Request approval with POST /control/approvals/request, actionType policy.upsert and the policy as payload; once a different decider approved it, repeat the upsert with approvalId. A bounded credential may write only patterns covering actions its boundaries can contain (403). Tightening changes are written directly.',
      body: PolicyUpsertBody, data: PolicySchema, meta: Type.Object({ created: Type.Boolean() }, { additionalProperties: false }), errors: ['INVALID_REQUEST', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT'],
      handler: async ({ body, caller, request }: RouteContext) => {
        const { policy, created } = await control.policyChanges.byCredential(caller, body as Static<typeof PolicyUpsertBody>, request.id)
        return { data: policy, meta: { created } }
      },
    },
    {
      ...common, method: 'GET', path: '/control/approvals', key: 'control.approvals.list', tag: 'control-approvals', scope: 'control:approvals:read',
      summary: "Approvals, newest first: the caller's own, or all for deciders and audit readers",
      querystring: ListedApprovalsQuery, data: Type.Array(ApprovalSchema), list: true, errors: ['INVALID_REQUEST'],
      handler: async ({ query, caller }) => {
        const { before, page } = newestFirstCursor(services, query)
        const { items, hasMore } = await control.approvals.list({
          requesterId: seesAll(caller) ? undefined : caller.credentialId, id: query.id, status: query.status, actionType: query.actionType, before, limit: query.limit ?? 50,
        })
        return { data: items, pagination: page(items, hasMore) }
      },
    },
    {
      ...common, method: 'POST', path: '/control/approvals/request', key: 'control.approvals.request', tag: 'control-approvals', scope: 'control:approvals:request',
      summary: 'Ask for approval of an action with this exact payload (bound to its SHA-256 digest); needs metadata.source, agentId and traceId',
      body: ApprovalRequestBody, data: ApprovalSchema, errors: ['INVALID_REQUEST', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT'],
      handler: async ({ body, caller, request }) => ({ data: await requestApprovalAsReader(services, caller, body, request.id) }),
    },
    {
      ...common, method: 'POST', path: '/control/approvals/decide', key: 'control.approvals.decide', tag: 'control-approvals', scope: 'control:approvals:decide',
      summary: 'Approve or reject a pending approval, with a reason; deciders differ from the requester and from each other',
      body: DecideBody, data: ApprovalSchema, errors: ['INVALID_REQUEST', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT'],
      handler: async ({ body, caller, request }) => {
        const b = body as Static<typeof DecideBody>
        return { data: await control.decide(b.approvalId, credentialActor(caller), b.decision, b.reason, request.id) }
      },
    },
    {
      ...common, method: 'GET', path: '/control/executions', key: 'control.executions.list', tag: 'control-executions', scope: 'control:executions:read',
      summary: "Executions, newest first: the caller's own, or all for deciders and audit readers",
      querystring: ListedExecutionsQuery, data: Type.Array(ExecutionSchema), list: true, errors: ['INVALID_REQUEST'],
      handler: async ({ query, caller }) => {
        const { before, page } = newestFirstCursor(services, query)
        const { items, hasMore } = await control.executions.list({
          executorId: seesAll(caller) ? undefined : caller.credentialId, id: query.id, status: query.status, actionType: query.actionType,
          approvalId: query.approvalId, before, limit: query.limit ?? 50,
        })
        return { data: items, pagination: page(items, hasMore) }
      },
    },
    {
      ...common, method: 'POST', path: '/control/policy-simulate', key: 'control.policy.simulate', tag: 'control-actions', scope: 'control:actions:simulate',
      summary: 'What executing this action would do now: policy, approval state, missing scopes, payload errors, limits, boundaries; no side effects',
      description: "Simulating an action on a record reads it: the caller needs the read scope of the action's family (variants:read, orders:read, entries:read; else 403 naming it), and the record named in the payload is read as GET /{family}/show?id= reads it (404 when missing or not visible, 403 outside an open run's read boundary).",
      body: SimulateBody, data: SimulationSchema, errors: ['INVALID_REQUEST', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT'],
      handler: async ({ body, caller }) => {
        const b = body as Static<typeof SimulateBody>
        return { data: simulationView(await simulateAsReader(services, caller, b), b.actionType, caller.scopes.has(EXECUTE_SCOPE)) }
      },
    },
    {
      ...common, method: 'POST', path: '/control/actions/execute', key: 'control.actions.execute', tag: 'control-actions', scope: 'control:actions:execute',
      summary: 'Execute an action once: needs an Idempotency-Key header; answers the execution (succeeded, failed or blocked with reasons)',
      description: 'Send `Idempotency-Key: <1–200 of A-Z a-z 0-9 . _ : ->`. Keys are per credential: the same key with the same body answers the stored execution again (meta.replayed true, header Idempotent-Replayed: true); the same key with a different body is 409 CONFLICT. A blocked or failed execution is stored under its key too; retry with a new key.',
      body: ExecuteBody, data: ExecutionSchema, meta: Type.Object({ replayed: Type.Boolean() }, { additionalProperties: false }),
      errors: ['INVALID_REQUEST', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT'],
      headers: Type.Object({ 'Idempotency-Key': IdempotencyKeyHeader }),
      handler: async ({ body, caller, request, reply }) => {
        // Checked against `headers` before the handler runs: present, once, and well formed.
        const key = request.headers['idempotency-key'] as string
        const { execution, replayed } = await executeAsReader(services, caller, body as Static<typeof ExecuteBody>, key, request.id)
        if (replayed) reply.header('Idempotent-Replayed', 'true')
        return { data: execution, meta: { replayed } }
      },
    },
    {
      ...common, method: 'GET', path: '/control/audit', key: 'control.audit.list', tag: 'control-audit', scope: 'control:audit:read',
      summary: 'The hash-chained audit log in append order (policy changes, approvals, expiries, executions, credential lifecycle)',
      querystring: AuditQuery, data: Type.Array(AuditRecordSchema), list: true, errors: ['INVALID_REQUEST'],
      handler: async ({ query }) => {
        const { cursor, limit, ...filters } = query as Static<typeof AuditQuery>
        const digest = queryDigest(filters)
        let afterId = 0
        if (cursor !== undefined) {
          const c = services.cursors.decode<{ q?: string; a?: number }>(cursor)
          if (c.q !== digest || typeof c.a !== 'number') throw invalid('cursor', 'cursor belongs to another query; repeat the parameters of the first page')
          afterId = c.a
        }
        const since = filters.since !== undefined ? Date.parse(filters.since) : undefined
        if (since !== undefined && Number.isNaN(since)) throw new ApiError('INVALID_REQUEST', 'Invalid parameter: since', [{ param: 'since', problem: 'not a date-time' }])
        const { items, hasMore } = await listAudit(services.database.db, { ...filters, since, afterId, limit: limit ?? 50 })
        const last = items[items.length - 1]
        return { data: items, pagination: { hasMore, nextCursor: hasMore && last ? services.cursors.encode({ q: digest, a: last.id }) : null } }
      },
    },
  ]
}
