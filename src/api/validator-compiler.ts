// Route validation with two Ajv instances. Query strings, path parameters and headers are
// text, so their values are coerced to the declared types (`limit=10`, `lowStock=yes`
// through the schemas' own spellings). JSON bodies carry their own types and are validated
// as sent: with coercion `{"requiresApproval": null}` became `false` and `"7"` became 7, so
// a mistyped policy silently ran actions without approval. Both report every error
// (allErrors) so a 400 names each bad field, and neither strips unknown properties.
import AjvCompiler from '@fastify/ajv-compiler'
import type { FastifySchemaCompiler } from 'fastify'
import { isDateTime } from '../resources/formats.js'

const common = { allErrors: true, removeAdditional: false, useDefaults: true } as const

type Validate = ReturnType<FastifySchemaCompiler<unknown>>
type Route = Parameters<FastifySchemaCompiler<unknown>>[0]

/** What Fastify reads from a validator besides its answer. */
interface AjvValidate {
  (data: unknown, context?: unknown): unknown
  errors?: unknown
  schemaEnv?: unknown
}

// Compiled validators are kept for the process, by schema: a process that builds more than
// one app (the test suite builds one or more per test file, a CLI command next to a server)
// compiles each schema once. A validator depends on its schema and options only (no shared
// schemas are registered), so one compiled for an app validates the same schema in another.
const compiled = new Map<string, AjvValidate>()

/**
 * Fastify's validator compiler: strict for `body`, coercing for the text parts.
 *
 * A route's validator is compiled when the route first validates a request, not when the app
 * is built: compiling every route's schemas was a fifth of a server's start-up (about 0.2 s
 * of CPU of 0.9 s), and most processes (a CLI command, a worker, a test) ask a few routes of
 * the hundreds they register. Compiling late moves no error from start-up to a request: the
 * schemas are fixed declarations, checked by the suite's contract tests, and a provider's
 * `item` and `params` schemas are compiled when the provider is checked at start-up
 * (providers/check-provider.ts).
 */
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const pool = AjvCompiler()
  // The pool's typings describe Ajv's compile; at run time it takes Fastify's route definition.
  const text = pool({}, { customOptions: { ...common, coerceTypes: true }, onCreate: dateTimes }) as unknown as (route: Route) => AjvValidate
  const json = pool({}, { customOptions: { ...common, coerceTypes: false }, onCreate: dateTimes }) as unknown as (route: Route) => AjvValidate
  /** The process's validator for this route's schema, compiled on the first ask. */
  const compiledFor = (route: Route): AjvValidate => {
    const body = route.httpPart === 'body'
    const key = `${body ? 'json' : 'text'} ${JSON.stringify(route.schema)}`
    let validate = compiled.get(key)
    if (!validate) compiled.set(key, (validate = body ? json(route) : text(route)))
    return validate
  }
  return (route) => {
    let validate: AjvValidate | undefined
    const numbers = route.httpPart === 'body' ? undefined : numericMembers(route.schema)
    const lazy: AjvValidate = (data, context) => {
      // Ajv's coercion reads text as JavaScript does (`0x10`, `1e2`, ` 10`, `Infinity`): a
      // number in a query or path must be written as one, in decimal, before Ajv sees it.
      // The other members are still checked, so the answer names every bad one.
      const loose = numbers && looseNumbers(data, numbers)
      validate ??= compiledFor(route)
      const answer = validate(data, context)
      // Fastify reads the errors from the function it was given, after each call.
      lazy.errors = validate.errors
      if (!loose) return answer
      const others = ((validate.errors ?? []) as AjvError[]).filter((e) => !loose.some((l) => e.instancePath === l.instancePath))
      lazy.errors = [...loose, ...others]
      return false
    }
    // Fastify passes the parent object only to a validator with `schemaEnv` (Ajv's), so that
    // coercion can replace a root value (a query string's); every validator here is Ajv's.
    lazy.schemaEnv = true
    return lazy as Validate
  }
}

/**
 * `date-time` as ajv-formats checks it (a real day of its month) and as the declarations'
 * checker reads it (resources/formats.ts): ajv-formats takes a leap second (`23:59:60Z`), which
 * JavaScript cannot read (`Date.parse` is NaN), so `updatedSince` at one matched nothing and a
 * feed cursor carrying it stood still for ever.
 */
function dateTimes(ajv: { formats: Record<string, unknown>; addFormat(name: string, check: (value: string) => boolean): unknown }): void {
  const given = ajv.formats['date-time'] as ((value: string) => boolean) | { validate: (value: string) => boolean }
  const calendar = typeof given === 'function' ? given : given.validate
  ajv.addFormat('date-time', (value) => calendar(value) && isDateTime(value))
}

type NumberKind = 'integer' | 'number'

/** The top-level members of a text part (query, path, headers) declared as numbers. */
function numericMembers(schema: unknown): ReadonlyMap<string, NumberKind> | undefined {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties
  const out = new Map<string, NumberKind>()
  for (const [name, member] of Object.entries(properties ?? {})) {
    if (member.type === 'integer' || member.type === 'number') out.set(name, member.type)
  }
  return out.size > 0 ? out : undefined
}

const DECIMAL: Record<NumberKind, RegExp> = { integer: /^-?\d+$/, number: /^-?\d+(\.\d+)?$/ }

/**
 * Ajv-shaped errors for the numeric members whose text is not a plain decimal (or, for an
 * integer, not one JavaScript holds exactly), so the 400 names each of them as Ajv's would.
 */
function looseNumbers(data: unknown, numbers: ReadonlyMap<string, NumberKind>): AjvError[] | undefined {
  if (data === null || typeof data !== 'object') return undefined
  let errors: AjvError[] | undefined
  for (const [name, kind] of numbers) {
    const text = (data as Record<string, unknown>)[name]
    if (typeof text !== 'string') continue
    const exact = DECIMAL[kind].test(text)
    if (exact && (kind === 'number' || Number.isSafeInteger(Number(text)))) continue
    const error: AjvError = exact
      ? { instancePath: `/${name}`, schemaPath: `#/properties/${name}/maximum`, keyword: 'maximum', params: { limit: Number.MAX_SAFE_INTEGER }, message: `must be between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}` }
      : { instancePath: `/${name}`, schemaPath: `#/properties/${name}/type`, keyword: 'type', params: { type: kind }, message: `must be ${kind}` }
    ;(errors ??= []).push(error)
  }
  return errors
}

interface AjvError {
  instancePath: string
  schemaPath: string
  keyword: string
  params: Record<string, unknown>
  message: string
}
