// The part of the MCP endpoint that needs the SDK, loaded at the first MCP request
// (mcp-endpoint.ts): one message answered through the SDK's Streamable HTTP transport, run
// stateless (sessions are ours, in the database) and answering JSON.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { McpResource } from './mcp-resources.js'
import { mcpServer, type McpHooks } from './mcp-server.js'
import type { ToolContext } from './mcp-tool.js'
import type { ToolCatalog } from './tool-catalog.js'

export { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'

export interface Exchange {
  readonly tools: ToolCatalog
  readonly resources: readonly McpResource[]
  readonly context: ToolContext
  readonly hooks: McpHooks
}

/** Answers one JSON-RPC message (already parsed as `body`) on the raw response. */
export async function answer(request: FastifyRequest, reply: FastifyReply, body: unknown, x: Exchange): Promise<void> {
  const server = mcpServer(x.tools, x.resources, x.context, x.hooks)
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  await server.connect(transport)
  // The transport writes the answer itself; the headers set so far (request id, rate limit,
  // session id) go out with it.
  reply.hijack()
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value)
  reply.raw.on('close', () => {
    void transport.close()
    void server.close()
  })
  try {
    await transport.handleRequest(request.raw, reply.raw, body)
  } catch (err) {
    request.log.error({ err, requestId: request.id }, 'MCP request failed')
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
      reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }))
    }
  }
}
