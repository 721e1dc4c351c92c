// Checks that a module's default export is a provider (src/providers/provider.ts) before any
// route is built from it: a wrong export stops start-up with every problem named, instead of
// surfacing as a 500 on the first request.
import { Ajv } from 'ajv'
import * as ajvFormats from 'ajv-formats'
import type { Provider } from './provider.js'

// ajv-formats is CommonJS: under NodeNext its plugin is the `default` of the namespace.
const addFormats = ajvFormats.default.default ?? ajvFormats.default

/** Compiles item schemas; the same JSON Schema dialect Fastify validates requests with. */
export const schemaCompiler = addFormats(new Ajv({ strict: false, allErrors: false }))

export const NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/
/** Parameters Gatehouse itself takes on every provider list. */
export const RESERVED_PARAMS = ['limit', 'cursor', 'fields', 'filter'] as const

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isObjectSchema = (v: unknown): boolean => isObject(v) && v.type === 'object' && isObject(v.properties)

/** Every problem with `value` as a provider; empty when it is one. */
export function providerProblems(value: unknown): string[] {
  if (!isObject(value)) return [`the default export is ${value === undefined ? 'missing' : 'not an object'}; export default defineProvider({ plugin, resources })`]
  const problems: string[] = []
  if (typeof value.plugin !== 'string' || !NAME.test(value.plugin)) problems.push('plugin must be a name of lowercase letters, digits and dashes')
  for (const hook of ['start', 'stop', 'available'] as const) {
    if (value[hook] !== undefined && typeof value[hook] !== 'function') problems.push(`${hook} must be a function when given`)
  }
  if (!Array.isArray(value.resources) || value.resources.length === 0) return [...problems, 'resources must be a non-empty array']
  const names = new Set<string>()
  value.resources.forEach((r: unknown, i) => {
    const at = `resources[${i}]`
    if (!isObject(r)) return problems.push(`${at} is not an object`)
    if (typeof r.name !== 'string' || !NAME.test(r.name)) problems.push(`${at}.name must be a name of lowercase letters, digits and dashes`)
    else if (names.has(r.name)) problems.push(`${at}.name "${r.name}" is used twice`)
    else names.add(r.name)
    if (typeof r.summary !== 'string' || r.summary.trim() === '') problems.push(`${at}.summary must be a non-empty string`)
    if (typeof r.list !== 'function') problems.push(`${at}.list must be a function`)
    if (typeof r.get !== 'function') problems.push(`${at}.get must be a function`)
    if (!isObjectSchema(r.item)) problems.push(`${at}.item must be an object schema with properties`)
    else {
      try {
        schemaCompiler.compile(r.item as object)
      } catch (err) {
        problems.push(`${at}.item is not a valid JSON Schema: ${(err as Error).message}`)
      }
    }
    if (r.params !== undefined) {
      if (!isObjectSchema(r.params)) problems.push(`${at}.params must be an object schema with properties`)
      else {
        const taken = Object.keys((r.params as Record<string, object>).properties).filter((k) => (RESERVED_PARAMS as readonly string[]).includes(k))
        if (taken.length > 0) problems.push(`${at}.params must not define ${taken.join(', ')} (Gatehouse provides them)`)
        // Route validators compile on a route's first request (api/validator-compiler.ts): a
        // schema Ajv refuses is caught here, at start-up, not as a 500 on that request.
        try {
          schemaCompiler.compile(r.params as object)
        } catch (err) {
          problems.push(`${at}.params is not a valid JSON Schema: ${(err as Error).message}`)
        }
      }
    }
    if (r.appliesItself !== undefined && !isObject(r.appliesItself)) problems.push(`${at}.appliesItself must be an object`)
    return undefined
  })
  return problems
}

export function isProvider(value: unknown): value is Provider {
  return providerProblems(value).length === 0
}
