// The SDK's v2 client (@modelcontextprotocol/client) pinned to revision 2026-07-28: no
// initialize, no session; each request carries its version and client info in `_meta`. It
// declares URL-mode elicitation, which the approval round trip asks for; `onApprovalPage` is
// what the user would do on the page (tests decide through the admin API there) before the
// client retries the call by itself.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { CallToolResult } from '@modelcontextprotocol/client'
import type { TestApp } from '../../helpers/test-app.js'
import { listening, MCP } from './mcp-client.js'

export const MODERN = '2026-07-28'

export interface ModernConnection {
  readonly client: Client
  readonly url: URL
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>
  toolNames(): Promise<string[]>
  /** The URL-mode elicitations the server asked for, in order. */
  readonly asked: { url: string; message: string }[]
}

export interface ModernOptions {
  readonly name?: string
  readonly version?: string
  /** Called when the server asks the user to open a page; the elicitation is then accepted. */
  readonly onApprovalPage?: (url: string) => Promise<void>
  /** Declare URL-mode elicitation (default true). */
  readonly elicitation?: boolean
  readonly baseUrl?: string
}

export async function connectModern(app: TestApp, token: string, opts: ModernOptions = {}): Promise<ModernConnection> {
  const url = new URL((opts.baseUrl ?? (await listening(app))) + MCP)
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } })
  const client = new Client({ name: opts.name ?? 'modern-agent', version: opts.version ?? '2.0.0' }, {
    capabilities: opts.elicitation === false ? {} : { elicitation: { url: {} } },
    versionNegotiation: { mode: { pin: MODERN } },
  })
  const asked: { url: string; message: string }[] = []
  if (opts.elicitation !== false) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { url: string; message: string }
      asked.push({ url: params.url, message: params.message })
      await opts.onApprovalPage?.(params.url)
      return { action: 'accept' }
    })
  }
  await client.connect(transport)
  return {
    client, url, asked,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    toolNames: async () => (await client.listTools()).tools.map((t) => t.name).sort(),
  }
}
