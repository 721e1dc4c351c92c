// /gatehouse/mcp: the Model Context Protocol over the SDK's Streamable HTTP transport, behind
// the machine API's own authenticator (bearer token, expiry, allowlist, rate limit, metrics).
// The transport runs stateless, one per request, answering JSON; sessions are ours and live
// in the database (McpSessions), so any process continues a session any other one started:
// `initialize` opens one bound to the credential and hands its id out in Mcp-Session-Id;
// every later request must bring it, with the same credential.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { MachineApiOptions } from '../api/machine-api.js'
import type { Caller } from '../kernel/caller.js'
import { ApiError } from '../kernel/errors.js'
import { MCP_PATH } from '../contract/service-info.js'
import type { MachineRoute } from '../kernel/machine-route.js'
import type { Services } from '../operations/services.js'
import { mcpResources } from './mcp-resources.js'
import type { McpHooks } from './mcp-server.js'
import { McpSessions, type McpSession } from '../auth/mcp-sessions.js'
import { ToolCatalog } from './tool-catalog.js'

export interface McpEndpointOptions {
  readonly services: Services
  /** The finished route registry the tools are derived from. */
  readonly routes: readonly MachineRoute[]
  /** The machine API's authenticator (`makeAuthenticator`), so both surfaces admit the same callers. */
  readonly authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<Caller>
  readonly onAnswered?: MachineApiOptions['onAnswered']
  readonly onDenied?: MachineApiOptions['onDenied']
  readonly onToolCall?: McpHooks['onToolCall']
}

const SESSION_HEADER = 'mcp-session-id'
/** Client name and version become approval provenance: printable text of reasonable length. */
const CLIENT_TEXT = /^[^\p{Cc}]{1,200}$/u

/** A JSON-RPC error answer, as the SDK's transport gives them (id null: not tied to one message). */
function rpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ jsonrpc: '2.0', error: { code, message }, id: null })
}

export async function mcpEndpoint(app: FastifyInstance, opts: McpEndpointOptions): Promise<void> {
  const { services } = opts
  const tools = new ToolCatalog(services, opts.routes)
  const resources = mcpResources(services, opts.routes)
  const sessions = new McpSessions(services.database)
  const allowedOrigin = new URL(services.settings.baseUrl).origin
  const started = new WeakMap<FastifyRequest, number>()
  // The SDK (and zod under it) is loaded at the first MCP request, not at start-up: it is
  // about 6 MB of an idle server's memory, which most sites never use.
  let exchange: Promise<typeof import('./mcp-exchange.js')> | undefined
  const sdk = () => (exchange ??= import('./mcp-exchange.js'))

  const guarded = {
    config: { metricsKey: 'mcp' },
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      started.set(request, performance.now())
      // As on the machine API: answers carry records and scopes, so no cache may keep them.
      reply.header('Cache-Control', 'no-store')
      // DNS rebinding (MCP transport rules): a browser page may only call from our own origin.
      const origin = request.headers.origin
      if (origin !== undefined && origin !== allowedOrigin) throw new ApiError('FORBIDDEN', `Origin ${origin} is not allowed; calls from a browser must come from ${allowedOrigin}`)
      await opts.authenticate(request, reply)
    },
    onResponse: async (request: FastifyRequest, reply: FastifyReply) => {
      opts.onAnswered?.(request, reply, performance.now() - (started.get(request) ?? performance.now()))
    },
  }

  app.post(MCP_PATH, guarded, async (request, reply) => {
    const caller = request.caller as Caller
    const body = request.body
    const messages: unknown[] = Array.isArray(body) ? body : [body]
    // One message per request: a batch would make many calls for one rate-limit hit (and the
    // protocol dropped batching in 2025-06-18; the SDK's client never sends one).
    if (messages.length !== 1) return rpcError(reply, 400, -32600, 'Invalid Request: send one JSON-RPC message per request; batches are not accepted')
    const { isInitializeRequest, answer } = await sdk()
    const init = isInitializeRequest(messages[0]) ? messages[0] : undefined
    let session: McpSession | undefined
    if (init) {
      const { name, version } = init.params.clientInfo
      if (!CLIENT_TEXT.test(name) || !CLIENT_TEXT.test(version)) {
        return rpcError(reply, 400, -32602, 'Invalid params: clientInfo.name and clientInfo.version must be 1–200 printable characters')
      }
      session = await sessions.create(caller.credentialId, { name, version })
      reply.header('Mcp-Session-Id', session.id)
    } else {
      const id = request.headers[SESSION_HEADER]
      if (typeof id !== 'string' || id === '') return rpcError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required; send initialize first')
      // Unknown, idle too long, or opened by another credential: all answered alike.
      session = await sessions.resolve(id, caller.credentialId)
      if (!session) return rpcError(reply, 404, -32001, 'Session not found')
    }

    const hooks: McpHooks = { onToolCall: opts.onToolCall, onScopeDenied: () => opts.onDenied?.('scope', request) }
    await answer(request, reply, body, { tools, resources, context: { services, caller, session, requestId: request.id }, hooks })
  })

  // No server-initiated stream: the transport rules let a server answer GET with 405.
  app.get(MCP_PATH, guarded, async (_request, reply) => {
    reply.header('Allow', 'POST, DELETE')
    throw new ApiError('METHOD_NOT_ALLOWED', `Method GET is not allowed on ${MCP_PATH}: this server sends no stream of its own; allowed: POST, DELETE`)
  })

  // The client ends its session.
  app.delete(MCP_PATH, guarded, async (request, reply) => {
    const id = request.headers[SESSION_HEADER]
    if (typeof id !== 'string' || id === '') return rpcError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required')
    if (!(await sessions.end(id, (request.caller as Caller).credentialId))) return rpcError(reply, 404, -32001, 'Session not found')
    return reply.code(204).send()
  })
}
