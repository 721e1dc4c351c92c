// Route validation with two Ajv instances. Query strings, path parameters and headers are
// text, so their values are coerced to the declared types (`limit=10`, `lowStock=yes`
// through the schemas' own spellings). JSON bodies carry their own types and are validated
// as sent: with coercion `{"requiresApproval": null}` became `false` and `"7"` became 7, so
// a mistyped policy silently ran actions without approval. Both report every error
// (allErrors) so a 400 names each bad field, and neither strips unknown properties.
import AjvCompiler from '@fastify/ajv-compiler'
import type { FastifySchemaCompiler } from 'fastify'

//
// Compiled validators are kept for the process, by schema: compiling every route's schemas
// costs about 1.2 s of CPU per app, and a process that builds more than one app (the test
// suite builds one or more per test file, a CLI command next to a server) compiles each
// schema once. A validator depends on its schema and options only (no shared schemas are
// registered), so one compiled for an app validates the same schema in another.
const common = { allErrors: true, removeAdditional: false, useDefaults: true } as const

type Validate = ReturnType<FastifySchemaCompiler<unknown>>
const compiled = new Map<string, Validate>()

/** Fastify's validator compiler: strict for `body`, coercing for the text parts. */
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const pool = AjvCompiler()
  // The pool's typings describe Ajv's compile; at run time it takes Fastify's route definition.
  const text = pool({}, { customOptions: { ...common, coerceTypes: true } }) as unknown as FastifySchemaCompiler<unknown>
  const json = pool({}, { customOptions: { ...common, coerceTypes: false } }) as unknown as FastifySchemaCompiler<unknown>
  return (route) => {
    const body = route.httpPart === 'body'
    const key = `${body ? 'json' : 'text'} ${JSON.stringify(route.schema)}`
    let validate = compiled.get(key)
    if (!validate) {
      validate = body ? json(route) : text(route)
      compiled.set(key, validate)
    }
    return validate
  }
}
