// Governed writes as tools (only while PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL is on, like their
// routes): simulate, request approval, read an approval, execute. No tool writes content
// itself; execute_action runs the control plane's execution, with its policies, approvals,
// boundaries, idempotency and audit. Provenance comes from the MCP session, not from the
// arguments: an agent cannot claim to be another.
import { Type } from '@sinclair/typebox'
import type { MachineRoute } from '../kernel/machine-route.js'
import { ApprovalRequestBody, ApprovalSchema, ExecuteBody } from '../control/control-schemas.js'
import { EXECUTE_SCOPE } from '../control/evaluate-action.js'
import { IDEMPOTENCY_KEY } from '../control/execute-action.js'
import { simulationView } from '../control/simulation-view.js'
import { simulateAsReader } from '../operations/simulate-action.js'
import { toJsonSchema } from '../contract/json-schema.js'
import { routeIndex, toolFromRoute, type McpTool, type ToolContext } from './mcp-tool.js'

/** `metadata.source` of approvals and executions that come through MCP. */
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

/** Provenance of an approval request: the client named in `initialize`, and this request as the trace. */
const approvalProvenance = (ctx: ToolContext) =>
  ({ source: MCP_SOURCE, agentId: ctx.session.clientName, agentVersion: ctx.session.clientVersion, traceId: ctx.requestId })

/**
 * Provenance of an execution. It is part of what the idempotency key is bound to, so it holds
 * only what a retry repeats (no trace id; the audit record carries the request id instead).
 */
const executionProvenance = (ctx: ToolContext) => ({ source: MCP_SOURCE, agentId: ctx.session.clientName })

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
        data: await ctx.services.control.requestApproval(ctx.caller, { ...args, metadata: approvalProvenance(ctx) }, ctx.requestId),
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
      run: async (ctx, args) => {
        const { idempotencyKey, ...request } = args
        const { execution, replayed } = await ctx.services.control.execute(ctx.caller, { ...request, metadata: executionProvenance(ctx) }, idempotencyKey, ctx.requestId)
        return { data: execution, meta: { replayed } }
      },
    }),
  ]
}
