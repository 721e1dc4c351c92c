// /gatehouse/mcp: the Model Context Protocol over Streamable HTTP, behind the machine API's
// own authenticator (bearer token, expiry, allowlist, rate limit, metrics). Both revisions on
// one URL, told apart by the request itself:
// - 2026-07-28 (the `_meta` envelope): stateless. No session, nothing looked up per request
//   beyond the caller; the client names itself in each request's `_meta`.
//   `subscriptions/listen` is served here from the change feed (change-subscriptions.ts).
// - 2025-11-25: `initialize` opens a session in the database (McpSessions, capped per
//   credential, swept when idle) and hands its id out in Mcp-Session-Id; later requests
//   bring it, with the same credential, and their approvals carry the name from initialize.
// The SDK (mcp-exchange.ts) answers the message either way. A store failure before the SDK
// is reached (authentication, the session) answers a JSON-RPC error the client shows the
// model, not an HTTP 503 it would report as a broken transport.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { MachineApiOptions } from '../api/machine-api.js'
import { storeErrors, toApiError } from '../api/error-handler.js'
import type { Caller } from '../kernel/caller.js'
import { ApiError } from '../kernel/errors.js'
import { MCP_PATH } from '../contract/service-info.js'
import type { MachineRoute } from '../kernel/machine-route.js'
import type { Services } from '../operations/services.js'
import { siteSecret } from '../store/meta.js'
import { McpSessions } from '../auth/mcp-sessions.js'
import { mcpResources } from './mcp-resources.js'
import type { McpHooks } from './mcp-server.js'
import type { DeclaredClient } from './mcp-tool.js'
import { ToolCatalog } from './tool-catalog.js'
import { StartedOnce } from '../kernel/started-once.js'
import { declaredClient, messageOf, rpcError, storeDown, type McpMessage } from './mcp-messages.js'
import { ChangeSubscriptions } from './change-subscriptions.js'
import type { McpService } from './mcp-exchange.js'

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

export async function mcpEndpoint(app: FastifyInstance, opts: McpEndpointOptions): Promise<void> {
  const { services } = opts
  const store = storeErrors(services.database, services.storage)
  const sessions = new McpSessions(services.database)
  const subscriptions = new ChangeSubscriptions(services)
  const allowedOrigin = new URL(services.settings.baseUrl).origin
  const started = new WeakMap<FastifyRequest, number>()
  /** Requests whose authentication failed because the store did: answered in the handler, where the message id is known. */
  const unavailable = new WeakMap<FastifyRequest, ApiError>()
  // The SDK (and zod under it) is loaded at the first MCP request, not at start-up: it is
  // several MB of an idle server's memory, which most sites never use. The tool catalogue and
  // resources are derived then too (about 7 ms of every app's start-up otherwise).
  // A start that failed (the database away at the first request) is tried again at the next.
  const service = new StartedOnce<McpService>(async () => {
    const { mcpService } = await import('./mcp-exchange.js')
    const stateKey = await siteSecret(services.database.db, 'mcp_request_state_secret')
    const tools = new ToolCatalog(services, opts.routes)
    const resources = mcpResources(services, opts.routes)
    return mcpService({ tools, resources, store, stateKey, onError: (err) => services.logger.debug({ err }, 'MCP request refused by the SDK') })
  })

  app.addHook('preClose', async () => {
    subscriptions.closeAll()
    // A start still under way is waited for; one that failed has nothing to close.
    await service.current?.then((s) => s.close(), () => {})
  })

  const guarded = {
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      started.set(request, performance.now())
      // As on the machine API: answers carry records and scopes, so no cache may keep them.
      reply.header('Cache-Control', 'no-store')
      // DNS rebinding (MCP transport rules): a browser page may only call from our own origin.
      const origin = request.headers.origin
      if (origin !== undefined && origin !== allowedOrigin) throw new ApiError('FORBIDDEN', `Origin ${origin} is not allowed; calls from a browser must come from ${allowedOrigin}`)
      try {
        const caller = await opts.authenticate(request, reply)
        // Each MCP request is a use; a tool's own refusals are answers inside it.
        services.credentials.noteUse(caller.credentialId)
      } catch (err) {
        const known = toApiError(err, request, store)
        if (request.method !== 'POST' || known?.code !== 'SERVICE_UNAVAILABLE') throw err
        unavailable.set(request, known)
      }
    },
    onResponse: async (request: FastifyRequest, reply: FastifyReply) => {
      opts.onAnswered?.(request, reply, performance.now() - (started.get(request) ?? performance.now()), 'mcp')
    },
  }

  // A body that cannot be read as a message is a JSON-RPC error, which a client's SDK reads as
  // one: -32700 for text that is no JSON, -32600 for JSON the body rules refuse (too deeply
  // nested, a number beyond ±2^53 − 1). Anything else (401, 413, 415) goes to the app's handler.
  const bodyErrors = {
    errorHandler: (err: Error, request: FastifyRequest, reply: FastifyReply) => {
      const known = toApiError(err, request, store)
      const detail = known?.code === 'INVALID_REQUEST' ? known.details?.[0] : undefined
      if (detail === undefined || request.body !== undefined) throw err
      if (detail.problem === 'invalid JSON') return rpcError(reply, 400, -32700, 'Parse error: the body is not valid JSON', null)
      return rpcError(reply, 400, -32600, `Invalid Request: ${detail.param} ${detail.problem}`, null)
    },
  }

  app.post(MCP_PATH, { ...guarded, ...bodyErrors }, async (request, reply) => {
    const body = request.body
    // One message per request: a batch would make many calls for one rate-limit hit (and the
    // protocol dropped batching in 2025-06-18; the SDK's client never sends one).
    if (Array.isArray(body) && body.length !== 1) return rpcError(reply, 400, -32600, 'Invalid Request: send one JSON-RPC message per request; batches are not accepted', null)
    const message = messageOf(Array.isArray(body) ? body[0] : body)
    const down = unavailable.get(request)
    if (down) return storeDown(reply, message, down)
    const caller = request.caller as Caller
    try {
      const client = message.modern ? declaredClient(message) : await legacySession(request, reply, message, caller)
      if (typeof client !== 'object') return client
      if ('problem' in client) return rpcError(reply, 400, -32602, client.problem, message.id)
      const context = { services, caller, client, requestId: request.id }
      if (message.modern && message.method === 'subscriptions/listen') return subscriptions.listen(request, reply, message, context)
      const hooks: McpHooks = { onToolCall: opts.onToolCall, onScopeDenied: () => opts.onDenied?.('scope', request) }
      await (await service.get()).answer(request, reply, body, { context, hooks })
    } catch (err) {
      const known = toApiError(err, request, store)
      if (known?.code === 'SERVICE_UNAVAILABLE' || known?.code === 'CONFLICT') return storeDown(reply, message, known)
      throw err
    }
  })

  /**
   * 2025-11-25: the client named in `initialize` (which opens a session), or in the session
   * the request brings. An answer already sent (no session, unknown session) ends the request.
   */
  async function legacySession(request: FastifyRequest, reply: FastifyReply, message: McpMessage, caller: Caller): Promise<DeclaredClient | { problem: string } | FastifyReply> {
    if (message.method === 'initialize') {
      const client = declaredClient(message)
      if ('problem' in client) return client
      const session = await sessions.create(caller.credentialId, client)
      reply.header('Mcp-Session-Id', session.id)
      return client
    }
    const id = request.headers[SESSION_HEADER]
    if (typeof id !== 'string' || id === '') return rpcError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required; send initialize first (or send 2026-07-28 requests, which need no session)', message.id)
    // Unknown, idle too long, or opened by another credential: all answered alike.
    const session = await sessions.resolve(id, caller.credentialId)
    if (!session) return rpcError(reply, 404, -32001, 'Session not found', message.id)
    return { name: session.clientName, version: session.clientVersion }
  }

  // No server-initiated stream: the transport rules let a server answer GET with 405
  // (2026-07-28 streams changes on subscriptions/listen instead).
  app.get(MCP_PATH, guarded, async (_request, reply) => {
    reply.header('Allow', 'POST, DELETE')
    throw new ApiError('METHOD_NOT_ALLOWED', `Method GET is not allowed on ${MCP_PATH}: this server sends no stream of its own; allowed: POST, DELETE`)
  })

  // A 2025-11-25 client ends its session.
  app.delete(MCP_PATH, guarded, async (request, reply) => {
    const id = request.headers[SESSION_HEADER]
    if (typeof id !== 'string' || id === '') return rpcError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required', null)
    if (!(await sessions.end(id, (request.caller as Caller).credentialId))) return rpcError(reply, 404, -32001, 'Session not found', null)
    return reply.code(204).send()
  })
}
