// A tool's arguments, checked as the HTTP API checks its route's input: the same Ajv
// settings as JSON bodies (types as sent, never coerced; every error; defaults filled in) and
// the same rendering of each problem (api/error-handler.ts), so `limit: 500` reads
// "must be <= 200" on both surfaces and an enumeration lists its values. Text PostgreSQL
// cannot store (NUL, lone surrogates) is refused first, as on HTTP.
import type { FastifySchema } from 'fastify'
import { validatorCompiler } from '../api/validator-compiler.js'
import { validationDetails } from '../api/error-handler.js'
import { invalidMany, type ApiError } from '../kernel/errors.js'
import { textProblem } from '../store/validation.js'
import type { McpTool } from './mcp-tool.js'

interface Validate {
  (value: unknown): boolean
  errors?: Parameters<typeof validationDetails>[0] | null
}

const compile = validatorCompiler()
const compiled = new WeakMap<McpTool, Validate>()

function validatorOf(tool: McpTool): Validate {
  let v = compiled.get(tool)
  if (!v) {
    v = compile({ schema: tool.input as FastifySchema, method: 'POST', url: `/mcp/${tool.name}`, httpPart: 'body' }) as unknown as Validate
    compiled.set(tool, v)
  }
  return v
}

/** The arguments with defaults filled in, or the INVALID_REQUEST naming each bad one. */
export function checkArguments(tool: McpTool, args: Record<string, unknown>): { args: Record<string, unknown> } | { error: ApiError } {
  const text = textProblem(args)
  if (text) return { error: invalidMany([text]) }
  const filled = structuredClone(args)
  const validate = validatorOf(tool)
  if (validate(filled)) return { args: filled }
  const details = validationDetails(validate.errors ?? [], tool.context, tool.input as never)
  return { error: invalidMany(details.map((d) => ({ ...d, problem: enumeration(tool, d.param) ?? d.problem }))) }
}

/**
 * An argument whose schema is a set of strings, sent as another JSON type (`lowStock: true`):
 * Ajv reports the type of each branch; the HTTP API, which only ever sees text, says the values.
 */
function enumeration(tool: McpTool, param: string): string | undefined {
  const schema = tool.input.properties[param] as { anyOf?: { const?: unknown }[] } | undefined
  const values = schema?.anyOf?.map((b) => b.const)
  return values && values.length > 0 && values.every((v) => typeof v === 'string') ? `must be one of: ${values.join(', ')}` : undefined
}
