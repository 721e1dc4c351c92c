// The MCP tool type, and how a tool is made from the machine route it mirrors: the route
// gives its scope, its flag, its input schema and the schema of its answer, so a tool and
// its HTTP route cannot disagree on who may call it, what it takes or what it returns.
import type { TObject } from '@sinclair/typebox'
import type { ToolAnnotations } from '@modelcontextprotocol/server'
import { NO_PARAMETERS, type FeatureFlag, type MachineRoute, type RouteResult } from '../kernel/machine-route.js'
import type { JsonResult } from '../kernel/json-result.js'
import type { Caller } from '../kernel/caller.js'
import { successSchema, type SchemaSink } from '../contract/route-contract.js'
import { toJsonSchema, type JsonSchema } from '../contract/json-schema.js'
import type { Services } from '../operations/services.js'
import type { RoundTrip } from './approval-round-trip.js'

/** The client as it names itself (2025-11-25: in `initialize`; 2026-07-28: in each request's `_meta`). Declared, never proof. */
export interface DeclaredClient {
  readonly name: string
  readonly version: string
}

/** What one tool call runs with: the same services and caller an HTTP request has, and the client it declared. */
export interface ToolContext {
  readonly services: Services
  readonly caller: Caller
  readonly client: DeclaredClient
  /** The HTTP request's id (X-Request-Id): audit records and provenance carry it as the trace. */
  readonly requestId: string
  /** 2026-07-28 requests only: the approval round trip (input-required results and their request state). */
  readonly roundTrip?: RoundTrip
}

/** The user must act before the call can finish: answered as an input-required result (2026-07-28). */
export interface InputRequiredAnswer {
  readonly inputRequired: { readonly url: string; readonly message: string; readonly requestState: string }
}

/** A tool's answer: the HTTP answer's `data` (or its ready JSON text), pagination and meta. */
export type ToolAnswer = RouteResult | JsonResult | InputRequiredAnswer

export interface McpTool {
  readonly name: string
  readonly title: string
  readonly description: string
  /** Scope a caller needs to see and call it (its route's). */
  readonly scope: string
  /** Setting that must be on for the tool to exist (its route's). */
  readonly flag?: FeatureFlag
  /** Arguments, validated as typed JSON (no coercion) before `run`. */
  readonly input: TObject
  /** How the HTTP API names an unknown argument: a route's query parameter, or a body property. */
  readonly context: 'querystring' | 'body'
  readonly inputSchema: JsonSchema
  /** Schema of structuredContent: the HTTP answer without `ok` and `requestId`. */
  readonly outputSchema: JsonSchema
  readonly annotations: ToolAnnotations
  /** Whether the tool may answer input-required (2026-07-28): only such a tool takes a `requestState` back. */
  readonly asksForInput: boolean
  // Validated against `input` before the call.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  run(ctx: ToolContext, args: any): Promise<ToolAnswer>
}

const inline: SchemaSink = { ref: (_name, schema) => schema }

/** The route's success body without the envelope's `ok` and `requestId`: what structuredContent holds. */
export function answerSchema(route: MachineRoute): JsonSchema {
  const body = successSchema(route, inline)
  const { ok: _ok, requestId: _requestId, ...properties } = body.properties as Record<string, JsonSchema>
  return { ...body, properties, required: (body.required as string[]).filter((k) => k !== 'ok' && k !== 'requestId') }
}

export interface ToolSpec {
  readonly name: string
  readonly title: string
  /** Arguments other than the route's query or body (governed tools take provenance from the session). */
  readonly input?: TObject
  readonly outputSchema?: JsonSchema
  readonly description?: string
  /** What HTTP request answers the same, when not the route itself with the same input. */
  readonly sameAs?: string
  readonly annotations?: ToolAnnotations
  readonly asksForInput?: boolean
  readonly run: McpTool['run']
}

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false }

export function toolFromRoute(route: MachineRoute, spec: ToolSpec): McpTool {
  const input = spec.input ?? route.querystring ?? route.body ?? NO_PARAMETERS
  const paging = route.list ? ' Pages: pass pagination.nextCursor as cursor to get the next one.' : ''
  return Object.freeze({
    name: spec.name,
    title: spec.title,
    description: (spec.description ?? route.summary) + '.' + paging + ` Needs scope ${route.scope}; same answer as ${spec.sameAs ?? `${route.method} ${route.path}`}.`,
    scope: route.scope,
    flag: route.flag,
    input,
    context: spec.input || !route.querystring ? 'body' : 'querystring',
    inputSchema: toJsonSchema(input),
    outputSchema: spec.outputSchema ?? answerSchema(route),
    annotations: { title: spec.title, ...(spec.annotations ?? READ_ONLY) },
    asksForInput: spec.asksForInput ?? false,
    run: spec.run,
  })
}

/** Looks routes up by key; a tool whose route is missing is a wiring error, found at start-up. */
export function routeIndex(routes: readonly MachineRoute[]) {
  const byKey = new Map(routes.map((r) => [r.key, r]))
  return {
    find: (key: string) => byKey.get(key),
    get(key: string): MachineRoute {
      const route = byKey.get(key)
      if (!route) throw new Error(`MCP: no machine route ${key} to derive a tool from`)
      return route
    },
  }
}
