// Route validation with two Ajv instances. Query strings, path parameters and headers are
// text, so their values are coerced to the declared types (`limit=10`, `lowStock=yes`
// through the schemas' own spellings). JSON bodies carry their own types and are validated
// as sent: with coercion `{"requiresApproval": null}` became `false` and `"7"` became 7, so
// a mistyped policy silently ran actions without approval. Both report every error
// (allErrors) so a 400 names each bad field, and neither strips unknown properties.
import AjvCompiler from '@fastify/ajv-compiler'
import type { FastifySchemaCompiler } from 'fastify'

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
  const text = pool({}, { customOptions: { ...common, coerceTypes: true } }) as unknown as (route: Route) => AjvValidate
  const json = pool({}, { customOptions: { ...common, coerceTypes: false } }) as unknown as (route: Route) => AjvValidate
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
    const lazy: AjvValidate = (data, context) => {
      validate ??= compiledFor(route)
      const answer = validate(data, context)
      // Fastify reads the errors from the function it was given, after each call.
      lazy.errors = validate.errors
      return answer
    }
    // Fastify passes the parent object only to a validator with `schemaEnv` (Ajv's), so that
    // coercion can replace a root value (a query string's); every validator here is Ajv's.
    lazy.schemaEnv = true
    return lazy as Validate
  }
}
