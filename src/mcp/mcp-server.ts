// The MCP server for one HTTP request: the SDK's low-level Server (v2 line) with the tool and
// resource handlers bound to this request's caller and declared client. The SDK builds one
// per request for both revisions (createMcpHandler's factory); the tool list and the JSON
// Schemas are computed once per app (ToolCatalog), so a Server costs a few registrations.
// tools/call: unknown name → protocol error; scope missing → error result naming it; bad
// arguments → error result naming each in the HTTP API's words (typed, never coerced); then
// the operation, with the schema's defaults filled in; store errors map as over HTTP.
import {
  CLIENT_CAPABILITIES_META_KEY, inputRequired, ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type ClientCapabilities, type RequestStateCodec, type ServerContext,
} from '@modelcontextprotocol/server'
import { ApiError, missingScope } from '../kernel/errors.js'
import { toApiError, type StoreErrors } from '../api/error-handler.js'
import { serviceInfo } from '../contract/service-info.js'
import { checkArguments } from './tool-arguments.js'
import { describeResource, type McpResources } from './mcp-resources.js'
import type { ToolContext } from './mcp-tool.js'
import { describeTool, type ToolCatalog } from './tool-catalog.js'
import { toolError, toolSuccess } from './tool-results.js'
import { codecRefusal, RoundTripRefusal, type RoundTrip, type RoundTripState } from './approval-round-trip.js'

export interface McpHooks {
  /** One tool call answered: the tool's name (`unknown` for a name no tool has) and `ok` or the error code. */
  readonly onToolCall?: (tool: string, outcome: string) => void
  /** A tool or resource refused for a missing scope. */
  readonly onScopeDenied?: () => void
}

export interface ServerParts {
  readonly tools: ToolCatalog
  readonly resources: McpResources
  readonly store: StoreErrors
  /**
   * 2026-07-28 only: the request-state codec. tools/call verifies an echoed state with it
   * itself (not through the SDK's `requestState.verify` seam, whose refusal is a frozen message
   * that tells the agent neither why nor what to do): a refusal says both.
   */
  readonly codec?: RequestStateCodec<RoundTripState>
}

const INSTRUCTIONS = 'Gatehouse: governed read access to content and commerce records. Tools list_<family> and get_<family> read records, '
  + 'list_changes follows the change feed, sync_checkpoint and sync_lag keep your place. List results carry pagination.nextCursor: pass it as cursor '
  + 'for the next page. Writes are never direct: simulate_action, then execute_action (on 2026-07-28 it asks for the approval inside the call; '
  + 'otherwise request_approval, get_approval, then execute_action once an operator approved). '
  + 'The resources hold the OpenAPI document, the capabilities, the content model and every readable record (templates).'

/** A `requestState` sent where no state is ever issued (a read, a tool that never asks for input). */
const neverAsks = (what: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid or expired requestState: ${what} never asks for input; send it without requestState`, { reason: 'invalid_request_state' })

/** Messages go out without a prefix of their own: the client adds "MCP error <code>:" once. */
const protocolError = (code: ProtocolErrorCode, message: string) => new ProtocolError(code, message)

/**
 * The round trip of one 2026-07-28 call: the state it echoed, verified (signature, binding to
 * the method and credential, the codec's expiry), and minting bound to this request. Without
 * the SDK's seam configured, `requestState()` is the raw wire string (the SDK itself refuses
 * one that is not a string, with its frozen message, before any handler runs).
 */
async function roundTripOf(codec: RequestStateCodec<RoundTripState>, reqCtx: ServerContext): Promise<RoundTrip> {
  // The SDK lifts the request's `_meta` envelope (version, client info, capabilities) into `envelope`.
  const envelope = reqCtx.mcpReq.envelope as Record<string, unknown> | undefined
  const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined
  const raw = reqCtx.mcpReq.requestState<string>()
  let state: RoundTripState | undefined
  if (raw !== undefined) {
    try {
      state = await codec.verify(raw, reqCtx)
    } catch (err) {
      throw codecRefusal(err)
    }
  }
  return {
    state,
    canAskUrl: declared?.elicitation?.url !== undefined,
    mint: (next) => codec.mint(next, reqCtx),
  }
}

export function mcpServer(parts: ServerParts, ctx: ToolContext, hooks: McpHooks, modern: boolean): Server {
  const { tools, resources } = parts
  const server = new Server(
    { name: serviceInfo.name, title: 'Gatehouse', version: serviceInfo.version },
    {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false, subscribe: modern } },
      instructions: INSTRUCTIONS,
      // 2025-11-25 clients keep the request/poll flow: no input-required result reaches them.
      inputRequired: { legacyShim: false },
    },
  )
  const { caller } = ctx

  server.setRequestHandler('tools/list', async () => ({ tools: tools.visible(caller).map(describeTool) }))

  server.setRequestHandler('tools/call', async (request, reqCtx) => {
    const { name } = request.params
    const tool = tools.get(name)
    if (!tool) {
      hooks.onToolCall?.('unknown', 'NOT_FOUND')
      throw protocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`)
    }
    const answer = (err: ApiError): CallToolResult => {
      hooks.onToolCall?.(tool.name, err.code)
      return toolError(err)
    }
    if (!caller.scopes.has(tool.scope)) {
      hooks.onScopeDenied?.()
      return answer(missingScope(tool.scope))
    }
    // A state is issued only by a tool that asks for input; one sent to any other would be
    // ignored, so the client is told instead (as resources/read tells it).
    if (!tool.asksForInput && reqCtx.mcpReq.requestState() !== undefined) {
      hooks.onToolCall?.(tool.name, 'INVALID_REQUEST')
      throw neverAsks(tool.name)
    }
    const checked = checkArguments(tool, request.params.arguments ?? {})
    if ('error' in checked) return answer(checked.error)
    try {
      const call: ToolContext = parts.codec && tool.asksForInput ? { ...ctx, roundTrip: await roundTripOf(parts.codec, reqCtx) } : ctx
      // Defaults were filled as the HTTP validator fills them, so both surfaces run the same
      // query (and hand out the same cursors).
      const result = await tool.run(call, checked.args)
      if ('inputRequired' in result) {
        hooks.onToolCall?.(tool.name, 'input_required')
        const { url, message, requestState } = result.inputRequired
        return inputRequired({ inputRequests: { approval: inputRequired.elicitUrl({ message, url }) }, requestState })
      }
      hooks.onToolCall?.(tool.name, 'ok')
      return server.projectCallToolResult(toolSuccess(tool, result), tool.outputSchema)
    } catch (err) {
      if (err instanceof RoundTripRefusal) {
        hooks.onToolCall?.(tool.name, 'INVALID_REQUEST')
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, err.message, err.data)
      }
      const known = toApiError(err, undefined, parts.store)
      if (known) return answer(known)
      // Logged in full here; the caller gets a fixed message (no SQL, stack or secret).
      ctx.services.logger.error({ err, requestId: ctx.requestId, tool: tool.name }, 'MCP tool failed')
      return answer(new ApiError('INTERNAL_ERROR', `The tool failed unexpectedly; quote request id ${ctx.requestId} when reporting it`))
    }
  })

  server.setRequestHandler('resources/list', async () => ({ resources: resources.fixed.filter((r) => caller.scopes.has(r.scope)).map(describeResource) }))

  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: resources.templates(caller) }))

  server.setRequestHandler('resources/read', async (request, reqCtx) => {
    // Nothing here ever asks for input, so no state was issued for it (the codec binds a
    // state to tools/call): refused as the SDK's seam refused it, with what to do.
    if (reqCtx.mcpReq.requestState() !== undefined) throw neverAsks('resources/read')
    try {
      const read = await resources.read(caller, request.params.uri)
      if ('problem' in read) {
        if (read.scopeDenied) hooks.onScopeDenied?.()
        throw protocolError(ProtocolErrorCode.InvalidParams, read.problem)
      }
      return { contents: [read] }
    } catch (err) {
      if (err instanceof ProtocolError) throw err
      const known = toApiError(err, undefined, parts.store)
      if (!known) throw err
      // A record that does not exist is a resource that does not (SEP-2164: Invalid Params, with the URI).
      if (known.code === 'NOT_FOUND') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}; ${known.message}`, { uri: request.params.uri })
      throw protocolError(known.code === 'SERVICE_UNAVAILABLE' ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidParams, `${known.code}: ${known.message}`)
    }
  })
  return server
}
