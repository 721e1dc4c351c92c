// Governed writes as tools (only while PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL is on, like their
// routes): simulate, request approval, read an approval, execute. No tool writes content
// itself; execute_action runs the control plane's execution, with its policies, approvals,
// boundaries, idempotency and audit. Provenance is the server's: `source` is this surface,
// the requester is the credential, and the client's name is recorded as what it declared.
// On 2026-07-28 an approval that is still needed is asked for inside the call
// (approval-round-trip.ts); 2025-11-25 clients request, poll and execute as before.
import { Type } from '@sinclair/typebox'
import type { MachineRoute } from '../kernel/machine-route.js'
import { ApprovalRequestBody, ApprovalSchema, ExecuteBody } from '../control/control-schemas.js'
import { EXECUTE_SCOPE } from '../control/evaluate-action.js'
import { IDEMPOTENCY_KEY } from '../control/execute-action.js'
import { simulationView } from '../control/simulation-view.js'
import { executeAsReader, requestApprovalAsReader, simulateAsReader } from '../operations/simulate-action.js'
import { toJsonSchema } from '../contract/json-schema.js'
import { routeIndex, toolFromRoute, type McpTool, type ToolAnswer, type ToolContext } from './mcp-tool.js'
import { approvalPage, checkState, closedApproval, newState, stateRefused, waitingMessage, type RoundTrip } from './approval-round-trip.js'
import type { Approval } from '../control/approval-store.js'

/** `metadata.source` of approvals and executions that come through MCP: set by this surface, never by the caller. */
export const MCP_SOURCE = 'mcp'

const { metadata: _approvalMetadata, ...approvalProps } = ApprovalRequestBody.properties
const RequestApprovalInput = Type.Object(approvalProps, { additionalProperties: false })

const { metadata: _executeMetadata, ...executeProps } = ExecuteBody.properties
const ExecuteInput = Type.Object({
  ...executeProps,
  idempotencyKey: Type.String({
    pattern: IDEMPOTENCY_KEY.source,
    description: 'A key of your choosing for this execution (1–200 of A-Z a-z 0-9 . _ : -). Calling again with the same key and arguments answers the stored execution instead of running it twice',
  }),
}, { additionalProperties: false })

const GetApprovalInput = Type.Object({
  approvalId: Type.String({ minLength: 1, maxLength: 100, description: 'The id request_approval answered' }),
}, { additionalProperties: false })

const GOVERNED = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const

/**
 * Provenance of an approval request: this surface, the name and version the client declared
 * (recorded as declared: the requester, the credential, is the identity), this request as the trace.
 */
const approvalProvenance = (ctx: ToolContext) =>
  ({ source: MCP_SOURCE, agentId: ctx.client.name, agentVersion: ctx.client.version, traceId: ctx.requestId, declared: ['agentId', 'agentVersion'] })

/**
 * Provenance of an execution. It is part of what the idempotency key is bound to, so it holds
 * only what a retry repeats (no trace id; the audit record carries the request id instead).
 */
const executionProvenance = (ctx: ToolContext) => ({ source: MCP_SOURCE, agentId: ctx.client.name })

export function governedTools(routes: readonly MachineRoute[]): McpTool[] {
  const route = routeIndex(routes)
  return [
    toolFromRoute(route.get('control.policy.simulate'), {
      name: 'simulate_action', title: 'Simulate an action',
      run: async ({ services, caller }, args) =>
        ({ data: simulationView(await simulateAsReader(services, caller, args), args.actionType, caller.scopes.has(EXECUTE_SCOPE)) }),
    }),
    toolFromRoute(route.get('control.approvals.request'), {
      name: 'request_approval', title: 'Request approval',
      description: 'Ask operators to approve an action with this exact payload; provenance (source mcp, agentId = your client name, traceId) is taken from this MCP session',
      input: RequestApprovalInput, annotations: GOVERNED, sameAs: 'POST /control/approvals/request with that metadata',
      run: async (ctx, args) => ({
        data: await requestApprovalAsReader(ctx.services, ctx.caller, { ...args, metadata: approvalProvenance(ctx) }, ctx.requestId, MCP_SOURCE),
      }),
    }),
    toolFromRoute(route.get('control.approvals.list'), {
      name: 'get_approval', title: 'Get an approval',
      description: 'One approval by id: its status (pending, approved, rejected, expired, consumed), decisions and expiry; your own, or any for deciders and audit readers',
      input: GetApprovalInput, sameAs: 'the item of GET /control/approvals?id=',
      outputSchema: { type: 'object', required: ['data'], properties: { data: toJsonSchema(ApprovalSchema) }, additionalProperties: false },
      run: async ({ services, caller }, args) => ({ data: await services.control.approvalFor(caller, args.approvalId) }),
    }),
    toolFromRoute(route.get('control.actions.execute'), {
      name: 'execute_action', title: 'Execute an action',
      description: 'Execute an action once, through its policy and (when required) an approved approval of exactly this payload; answers the execution (succeeded, failed, or blocked with reasons)',
      input: ExecuteInput, annotations: { ...GOVERNED, idempotentHint: true }, sameAs: 'POST /control/actions/execute with Idempotency-Key: idempotencyKey',
      asksForInput: true,
      run: async (ctx, args) => {
        const { idempotencyKey, ...request } = args
        const approvalId = ctx.roundTrip ? await roundTripApproval(ctx, ctx.roundTrip, args) : request.approvalId
        if (typeof approvalId === 'object') return approvalId
        const { execution, replayed } = await executeAsReader(ctx.services, ctx.caller, { ...request, approvalId, metadata: executionProvenance(ctx) }, idempotencyKey, ctx.requestId)
        return { data: execution, meta: { replayed } }
      },
    }),
  ]
}

interface ExecuteArgs {
  readonly actionType: string
  readonly payload: Record<string, unknown>
  readonly approvalId?: string
  readonly idempotencyKey: string
}

/**
 * 2026-07-28: which approval this execution runs with, or the input-required answer when the
 * user must act first. A retry brings the state: it must match this call and be unused; then
 * an approved approval executes, a pending one asks again, a rejected or expired one is a tool
 * error. A first call that needs an approval it does not name gets one requested for it. An
 * idempotency key already used by a round trip answers its stored execution.
 */
async function roundTripApproval(ctx: ToolContext, rt: RoundTrip, args: ExecuteArgs): Promise<string | undefined | ToolAnswer> {
  const { control } = ctx.services
  const { caller } = ctx
  if (rt.state) {
    checkState(rt.state, args, caller.credentialId)
    if (!(await control.roundTrips.use({ stateId: rt.state.sid, approvalId: rt.state.approvalId, credentialId: caller.credentialId, expiresAt: rt.state.expiresAt }))) {
      throw stateRefused('it was already used', 'call execute_action again without requestState and with the same idempotencyKey to read the execution')
    }
    const approval = await control.approvalFor(caller, rt.state.approvalId)
    const closed = closedApproval(approval)
    if (closed) throw closed
    if (approval.status === 'pending') return askAgain(ctx, rt, approval, args.idempotencyKey)
    return approval.id
  }
  if (args.approvalId !== undefined) return args.approvalId
  const earlier = await control.executions.byKey(caller.credentialId, args.idempotencyKey)
  if (earlier) return earlier.approvalId ?? undefined
  const ev = await control.simulate(caller, { actionType: args.actionType, payload: args.payload })
  const onlyApprovalMissing = ev.decision === 'blocked' && ev.approval.required && ev.reasons.length === 1
  if (!onlyApprovalMissing || !rt.canAskUrl) return undefined
  const approval = await requestApprovalAsReader(ctx.services, caller, {
    actionType: args.actionType, payload: args.payload, metadata: approvalProvenance(ctx), reason: 'Requested by execute_action over MCP',
  }, ctx.requestId, MCP_SOURCE)
  return askAgain(ctx, rt, approval, args.idempotencyKey)
}

async function askAgain(ctx: ToolContext, rt: RoundTrip, approval: Approval, idempotencyKey: string): Promise<ToolAnswer> {
  const requestState = await rt.mint(newState(approval, idempotencyKey, ctx.caller.credentialId))
  return { inputRequired: { url: approvalPage(ctx.services.settings.baseUrl, approval.id), message: waitingMessage(approval), requestState } }
}
