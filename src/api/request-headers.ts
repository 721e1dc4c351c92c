// Request headers a machine route declares (MachineRoute.headers) are checked here, by the
// declaration itself, so a header the server demands is always one the OpenAPI document
// lists. A 400 names the header as clients spell it, not Fastify's lower-cased key.
import type { TObject, TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { FastifyRequest } from 'fastify'
import { invalid } from '../kernel/errors.js'

/** What a header's value must be, for a 400: its description, else its pattern and lengths. */
function expected(schema: TSchema): string {
  if (typeof schema.description === 'string') return schema.description
  const bits = [typeof schema.pattern === 'string' ? `matching ${schema.pattern}` : undefined,
    schema.maxLength !== undefined ? `at most ${String(schema.maxLength)} characters` : undefined].filter(Boolean)
  return bits.length > 0 ? bits.join(', ') : 'a valid value'
}

/** Throws a 400 naming the first declared header that is missing (when required) or malformed. */
export function checkHeaders(declared: TObject, request: FastifyRequest): void {
  const required = new Set(declared.required ?? [])
  for (const [name, schema] of Object.entries(declared.properties)) {
    const value = request.headers[name.toLowerCase()]
    if (value === undefined) {
      if (required.has(name)) throw invalid(name, `this header is required: ${expected(schema)}`)
      continue
    }
    if (typeof value !== 'string') throw invalid(name, 'send this header once')
    if (!Value.Check(schema, value)) throw invalid(name, `must be ${expected(schema)}`)
  }
}
