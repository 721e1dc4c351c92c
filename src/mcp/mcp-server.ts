// The MCP server for one HTTP request: the SDK's low-level Server with the tool and resource
// handlers bound to this request's caller and session. The tool list and the JSON Schemas
// are computed once per app (ToolCatalog); a Server costs a few handler registrations.
// tools/call: unknown name → protocol error; scope missing → error result naming it; bad
// arguments → error result naming each (typed, never coerced); then the operation, with
// the schema's defaults filled in.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js'
import { Value } from '@sinclair/typebox/value'
import { ApiError, invalidMany, missingScope } from '../kernel/errors.js'
import { storeErrors, toApiError } from '../api/error-handler.js'
import { serviceInfo } from '../contract/service-info.js'
import { schemaProblems } from '../store/validation.js'
import type { McpResource } from './mcp-resources.js'
import { describeResource } from './mcp-resources.js'
import type { ToolContext } from './mcp-tool.js'
import { describeTool, type ToolCatalog } from './tool-catalog.js'
import { toolError, toolSuccess } from './tool-results.js'

export interface McpHooks {
  /** One tool call answered: the tool's name (`unknown` for a name no tool has) and `ok` or the error code. */
  readonly onToolCall?: (tool: string, outcome: string) => void
  /** A tool or resource refused for a missing scope. */
  readonly onScopeDenied?: () => void
}

const INSTRUCTIONS = 'Gatehouse: governed read access to content and commerce records. Tools list_<family> and get_<family> read records, '
  + 'list_changes follows the change feed, sync_checkpoint and sync_lag keep your place. List results carry pagination.nextCursor: pass it as cursor '
  + 'for the next page. Writes are never direct: simulate_action, request_approval, then execute_action once an operator approved (when enabled). '
  + 'The resources hold the OpenAPI document, the capabilities and the content model.'

export function mcpServer(tools: ToolCatalog, resources: readonly McpResource[], ctx: ToolContext, hooks: McpHooks): Server {
  const server = new Server(
    { name: serviceInfo.name, title: 'Gatehouse', version: serviceInfo.version },
    { capabilities: { tools: { listChanged: false }, resources: { listChanged: false } }, instructions: INSTRUCTIONS },
  )
  const { caller } = ctx

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.visible(caller).map(describeTool) }))

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name } = request.params
    const tool = tools.get(name)
    if (!tool) {
      hooks.onToolCall?.('unknown', 'NOT_FOUND')
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`)
    }
    const answer = (err: ApiError): CallToolResult => {
      hooks.onToolCall?.(tool.name, err.code)
      return toolError(err)
    }
    if (!caller.scopes.has(tool.scope)) {
      hooks.onScopeDenied?.()
      return answer(missingScope(tool.scope))
    }
    const args = request.params.arguments ?? {}
    const problems = schemaProblems(tool.input, args, '', 'unknown argument')
    if (problems.length > 0) return answer(invalidMany(problems))
    try {
      // Defaults filled as the HTTP validator fills them, so both surfaces run the same query
      // (and hand out the same cursors).
      const result = toolSuccess(tool, await tool.run(ctx, Value.Default(tool.input, structuredClone(args))))
      hooks.onToolCall?.(tool.name, 'ok')
      return result
    } catch (err) {
      const known = toApiError(err, undefined, storeErrors(ctx.services.database, ctx.services.storage))
      if (known) return answer(known)
      // Logged in full here; the caller gets a fixed message (no SQL, stack or secret).
      ctx.services.logger.error({ err, requestId: ctx.requestId, tool: tool.name }, 'MCP tool failed')
      return answer(new ApiError('INTERNAL_ERROR', `The tool failed unexpectedly; quote request id ${ctx.requestId} when reporting it`))
    }
  })

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: resources.filter((r) => caller.scopes.has(r.scope)).map(describeResource),
  }))

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const resource = resources.find((r) => r.uri === request.params.uri)
    if (!resource) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`)
    if (!caller.scopes.has(resource.scope)) {
      hooks.onScopeDenied?.()
      throw new McpError(ErrorCode.InvalidParams, `Missing required scope: ${resource.scope}`)
    }
    return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: resource.read(caller) }] }
  })
  return server
}
