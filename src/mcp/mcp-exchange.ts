// The part of the MCP endpoint that needs the SDK (v2 line, @modelcontextprotocol/server),
// loaded at the first MCP request (mcp-endpoint.ts). One handler per app from the SDK's
// createMcpHandler serves both revisions from one factory: 2026-07-28 requests (the `_meta`
// envelope) on its per-request path, 2025-11-25 requests through its stateless legacy path.
// Either way a fresh Server answers one request, so any process answers any request. The
// Fastify request is handed over as a web Request with the already parsed body; the
// caller, the declared client and the hooks travel in `authInfo.extra`, the SDK's
// pass-through for what the host authenticated.
import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { createMcpHandler, createRequestStateCodec, type AuthInfo, type McpHttpHandler } from '@modelcontextprotocol/server'
import type { StoreErrors } from '../api/error-handler.js'
import type { McpResources } from './mcp-resources.js'
import { mcpServer, type McpHooks } from './mcp-server.js'
import type { ToolContext } from './mcp-tool.js'
import type { ToolCatalog } from './tool-catalog.js'
import { ROUND_TRIP_TTL_MINUTES, type RoundTripState } from './approval-round-trip.js'

export interface Exchange {
  readonly context: ToolContext
  readonly hooks: McpHooks
}

export interface ExchangeParts {
  readonly tools: ToolCatalog
  readonly resources: McpResources
  readonly store: StoreErrors
  /** Key of the request-state HMAC, the same in every process (a site secret in the database). */
  readonly stateKey: Uint8Array
  readonly onError: (err: Error) => void
}

/** Headers the SDK does not get: ours (the session id, handled before it) and the bearer token. */
const KEPT_BACK = new Set(['host', 'connection', 'content-length', 'authorization', 'mcp-session-id', 'cookie'])

export interface McpService {
  answer(request: FastifyRequest, reply: FastifyReply, body: unknown, x: Exchange): Promise<void>
  close(): Promise<void>
}

export function mcpService(parts: ExchangeParts): McpService {
  const codec = createRequestStateCodec<RoundTripState>({
    key: parts.stateKey,
    ttlSeconds: ROUND_TRIP_TTL_MINUTES * 60,
    // Bound to the method and the credential: state handed to one credential is refused for another.
    bind: (ctx) => `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ''}`,
  })
  const handler: McpHttpHandler = createMcpHandler((rc) => {
    const x = rc.authInfo?.extra?.exchange as Exchange
    const modern = rc.era === 'modern'
    return mcpServer({ tools: parts.tools, resources: parts.resources, store: parts.store, ...(modern ? { codec } : {}) }, x.context, x.hooks, modern)
  }, { legacy: 'stateless', onerror: parts.onError })

  return {
    async answer(request, reply, body, x) {
      const headers = new Headers()
      for (const [name, value] of Object.entries(request.headers)) {
        if (value === undefined || KEPT_BACK.has(name)) continue
        headers.set(name, Array.isArray(value) ? value.join(', ') : value)
      }
      const abort = new AbortController()
      reply.raw.on('close', () => abort.abort())
      const web = new Request(new URL(request.url, 'http://gatehouse.invalid'), { method: 'POST', headers, signal: abort.signal })
      const authInfo: AuthInfo = { token: '', clientId: x.context.caller.credentialId, scopes: [...x.context.caller.scopes], extra: { exchange: x } }
      const response = await handler.fetch(web, { authInfo, parsedBody: body })
      reply.code(response.status)
      response.headers.forEach((value, name) => {
        // Ours stays: no-store, as on the machine API (answers carry records and scopes).
        if (name !== 'content-length' && name !== 'cache-control') reply.header(name, value)
      })
      if (response.body === null) return reply.send()
      if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        return reply.send(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream))
      }
      return reply.send(await response.text())
    },
    close: () => handler.close(),
  }
}
