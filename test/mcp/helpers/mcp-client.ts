// MCP tests talk to a real port with the official SDK client (Client + Streamable HTTP
// transport), authenticated by a bearer token like any machine client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { TestApp } from '../../helpers/test-app.js'

export const MCP = '/gatehouse/mcp'

export interface McpConnection {
  readonly client: Client
  readonly transport: StreamableHTTPClientTransport
  readonly url: URL
  /** Calls a tool and returns its result (errors come back as isError results). */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>
  toolNames(): Promise<string[]>
}

/** The app's listening address (listens on a free port the first time). */
export async function listening(app: TestApp): Promise<string> {
  const address = app.app.server.address()
  if (address && typeof address === 'object') return `http://127.0.0.1:${address.port}`
  return app.app.listen({ port: 0, host: '127.0.0.1' })
}

export async function connect(app: TestApp, token: string, opts: { name?: string; version?: string; sessionId?: string } = {}): Promise<McpConnection> {
  const url = new URL((await listening(app)) + MCP)
  const transport = new StreamableHTTPClientTransport(url, { sessionId: opts.sessionId, requestInit: { headers: { Authorization: `Bearer ${token}` } } })
  const client = new Client({ name: opts.name ?? 'test-agent', version: opts.version ?? '1.2.3' })
  await client.connect(transport)
  return {
    client, transport, url,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    toolNames: async () => (await client.listTools()).tools.map((t) => t.name).sort(),
  }
}

/** What both SDK lines' tool results share (the v1 and v2 types differ only in structuredContent). */
export interface AnyToolResult {
  readonly isError?: boolean
  readonly content: readonly { type: string; text?: string }[]
  readonly structuredContent?: unknown
}

/** The error code and details of an error result (its second text block is the JSON error). */
export function toolErrorOf(result: AnyToolResult): { code: string; message: string; details?: { param: string; problem: string }[]; retryable?: boolean; retryAfterSeconds?: number } {
  if (result.isError !== true) throw new Error(`expected an error result, got ${JSON.stringify(result).slice(0, 300)}`)
  const json = result.content[1]
  if (json?.type !== 'text' || json.text === undefined) throw new Error('error result without its JSON block')
  return (JSON.parse(json.text) as { error: { code: string; message: string; details?: { param: string; problem: string }[]; retryable?: boolean; retryAfterSeconds?: number } }).error
}

/** structuredContent of a successful result. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function structured(result: AnyToolResult): any {
  if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content).slice(0, 500)}`)
  return result.structuredContent
}
