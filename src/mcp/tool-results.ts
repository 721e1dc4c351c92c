// How a tool call answers. Success: structuredContent holds what the HTTP API's envelope
// holds (data, pagination with the next cursor, meta), and the content has a short summary
// then the same JSON as text, for clients that show the model only text. Failure: an error
// result (isError) with the code, message and each bad field, like the HTTP error body, so
// the model can correct its call.
import type { CallToolResult } from '@modelcontextprotocol/server'
import type { ApiError } from '../kernel/errors.js'
import type { McpTool } from './mcp-tool.js'
import type { RouteResult } from '../kernel/machine-route.js'
import type { JsonResult } from '../kernel/json-result.js'

type Structured = { data: unknown; pagination?: { hasMore: boolean; nextCursor: string | null }; meta?: Record<string, unknown> }

export function toolSuccess(tool: McpTool, answer: RouteResult | JsonResult): CallToolResult {
  const structured: Structured = { data: 'rawData' in answer ? JSON.parse(answer.rawData) : answer.data }
  if (answer.pagination) structured.pagination = answer.pagination
  if (answer.meta) structured.meta = answer.meta
  return {
    content: [{ type: 'text', text: summary(tool, structured) }, { type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
  }
}

const IDENTIFYING = ['id', 'credentialId', 'integrationKey', 'actionType', 'status', 'decision'] as const

function summary(tool: McpTool, s: Structured): string {
  if (Array.isArray(s.data)) {
    const page = `${tool.name}: ${s.data.length} item${s.data.length === 1 ? '' : 's'}`
    if (!s.pagination) return page
    if (s.pagination.hasMore) return `${page}; more follow: call ${tool.name} again with cursor "${s.pagination.nextCursor}"`
    return s.pagination.nextCursor ? `${page}; no more now: poll later with cursor "${s.pagination.nextCursor}"` : `${page}; last page`
  }
  const item = (s.data ?? {}) as Record<string, unknown>
  const known = IDENTIFYING.filter((k) => typeof item[k] === 'string' || typeof item[k] === 'number').map((k) => `${k} ${String(item[k])}`)
  const replayed = s.meta?.replayed === true ? ' (stored execution for this idempotency key, not run again)' : ''
  return `${tool.name}: ${known.length > 0 ? known.join(', ') : 'done'}${replayed}`
}

/** Seconds to wait before retrying, from the Retry-After the HTTP API would send; undefined when retrying cannot help. */
export function retryAfter(err: ApiError): number | undefined {
  const value = Number(err.headers?.['Retry-After'])
  return Number.isFinite(value) && value >= 0 ? value : undefined
}

/**
 * A tool execution error (isError), as the HTTP error body: code, message, details, and for a
 * retryable one (the database unreachable, a write conflict, the rate limit) the wait, which
 * over HTTP is the Retry-After header.
 */
export function toolError(err: ApiError): CallToolResult {
  const details = err.details ?? []
  const wait = retryAfter(err)
  const message = wait === undefined ? err.message : `${err.message}; retry in ${wait} second${wait === 1 ? '' : 's'}`
  const lines = [`${err.code}: ${message}`, ...details.map((d) => `- ${d.param}: ${d.problem}`)]
  const error = { code: err.code, message, ...(details.length > 0 ? { details } : {}), ...(wait === undefined ? {} : { retryable: true, retryAfterSeconds: wait }) }
  return { isError: true, content: [{ type: 'text', text: lines.join('\n') }, { type: 'text', text: JSON.stringify({ error }) }] }
}
