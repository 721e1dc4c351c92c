// The tools one app offers over MCP, built once from the route registry and the
// declarations. A tool whose flag is off does not exist; one whose scope the caller lacks
// is left out of its `tools/list` and refused, naming the scope, when called.
import type { Tool } from '@modelcontextprotocol/server'
import type { MachineRoute } from '../kernel/machine-route.js'
import type { Caller } from '../kernel/caller.js'
import type { Services } from '../operations/services.js'
import { governedTools } from './governed-tools.js'
import type { McpTool } from './mcp-tool.js'
import { readTools } from './read-tools.js'

export class ToolCatalog {
  /** Tools whose flag is on, in a stable order (families as declared, then the others). */
  readonly tools: readonly McpTool[]
  private readonly byName: ReadonlyMap<string, McpTool>

  constructor(services: Services, routes: readonly MachineRoute[]) {
    const all = [...readTools(services, routes), ...governedTools(routes)]
    this.tools = all.filter((t) => t.flag === undefined || services.settings[t.flag] === true)
    this.byName = new Map(this.tools.map((t) => [t.name, t]))
  }

  get(name: string): McpTool | undefined {
    return this.byName.get(name)
  }

  /** What `tools/list` shows this caller. */
  visible(caller: Caller): McpTool[] {
    return this.tools.filter((t) => caller.scopes.has(t.scope))
  }
}

export function describeTool(t: McpTool): Tool {
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema as Tool['inputSchema'],
    outputSchema: t.outputSchema as Tool['outputSchema'],
    annotations: t.annotations,
  }
}
