// What the endpoint reads of a JSON-RPC message before the SDK answers it (the method, its
// id, which revision sent it, the client it names), and the JSON-RPC errors the endpoint
// answers itself. Read without the SDK, which is loaded only at the first request.
import type { FastifyReply } from 'fastify'
import type { ApiError } from '../kernel/errors.js'
import { deceptiveText } from '../control/provenance.js'
import type { DeclaredClient } from './mcp-tool.js'
import { retryAfter } from './tool-results.js'

/** The `_meta` keys of the 2026-07-28 envelope. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
} as const

export interface McpMessage {
  readonly method: string | undefined
  readonly id: string | number | null
  readonly params: Record<string, unknown>
  /** Sent by a 2026-07-28 client: the request carries its protocol version in `_meta`. */
  readonly modern: boolean
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export function messageOf(body: unknown): McpMessage {
  const m = isObject(body) ? body : {}
  const params = isObject(m.params) ? m.params : {}
  const meta = isObject(params._meta) ? params._meta : {}
  return {
    method: typeof m.method === 'string' ? m.method : undefined,
    id: typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null,
    params,
    modern: typeof meta[META.protocolVersion] === 'string',
  }
}

/** Used when a 2026-07-28 request names no client (clientInfo is a SHOULD there). */
export const UNDECLARED: DeclaredClient = Object.freeze({ name: 'undeclared', version: 'undeclared' })

/**
 * The client as it names itself: `clientInfo` of `initialize` (2025-11-25) or of the request's
 * `_meta` (2026-07-28). Recorded as declared on approvals, so it must be printable text that
 * shows as what it is: control characters and bidirectional overrides are refused.
 */
export function declaredClient(message: McpMessage): DeclaredClient | { problem: string } {
  const where = message.modern ? `_meta["${META.clientInfo}"]` : 'clientInfo'
  const meta = isObject(message.params._meta) ? message.params._meta : {}
  const info = message.modern ? meta[META.clientInfo] : message.params.clientInfo
  if (info === undefined && message.modern) return UNDECLARED
  const { name, version } = isObject(info) ? info : {}
  for (const [field, value] of [['name', name], ['version', version]] as const) {
    if (typeof value !== 'string' || value.length < 1 || value.length > 200) return { problem: `Invalid params: ${where}.${field} must be 1–200 printable characters` }
    const problem = deceptiveText(value)
    if (problem) return { problem: `Invalid params: ${where}.${field} ${problem}` }
  }
  return { name: name as string, version: version as string }
}

/** A JSON-RPC error answer, as the SDK's transport gives them. */
export function rpcError(reply: FastifyReply, status: number, code: number, message: string, id: string | number | null, data?: Record<string, unknown>): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id })
}

/**
 * The store failed before the SDK was reached (authenticating, finding the session): a
 * JSON-RPC error in a 200 answer, which clients hand to the model, carrying the HTTP API's
 * code and the wait (also as Retry-After). -32603 is the spec's "internal error"; the data
 * says it is retryable. A 503 would read as a broken transport to the client.
 */
export function storeDown(reply: FastifyReply, message: McpMessage, err: ApiError): FastifyReply {
  const wait = retryAfter(err)
  if (wait !== undefined) reply.header('Retry-After', String(wait))
  const text = `${err.code}: ${err.message}${wait === undefined ? '' : `; retry in ${wait} second${wait === 1 ? '' : 's'}`}`
  return rpcError(reply, 200, -32603, text, message.id, { code: err.code, retryable: wait !== undefined, ...(wait === undefined ? {} : { retryAfterSeconds: wait }) })
}
