// Validation of write input against the declared schemas, reporting every bad field.
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import type { TObject } from '@sinclair/typebox'
import { ValueErrorType } from '@sinclair/typebox/errors'
import { invalidMany, type ErrorDetail } from '../contract/errors.js'

const compiled = new WeakMap<TObject, TypeCheck<TObject>>()

function checker(schema: TObject): TypeCheck<TObject> {
  let c = compiled.get(schema)
  if (!c) {
    c = TypeCompiler.Compile(schema)
    compiled.set(schema, c)
  }
  return c
}

/**
 * Problems with `value` under `schema`, one per field, with dotted paths. `unknownProblem` is the
 * problem named for a property the schema does not have (write input: it may be computed).
 */
export function schemaProblems(schema: TObject, value: unknown, prefix = '', unknownProblem = 'unknown or read-only property'): ErrorDetail[] {
  // PostgreSQL cannot store U+0000 in text; refuse it for both engines alike.
  const nul = nulPath(value, '')
  if (nul !== undefined) return [{ param: prefix + (nul || '(body)'), problem: 'must not contain NUL characters' }]
  const c = checker(schema)
  if (c.Check(value)) return []
  const seen = new Map<string, string>()
  for (const e of c.Errors(value)) {
    const path = e.path.replace(/^\//, '').replace(/\//g, '.')
    let param = prefix + (path || '(body)')
    let problem = e.message
    // An unknown property is reported on the object holding it; name the property instead.
    if (e.schema.additionalProperties === false && typeof e.value === 'object' && e.value !== null && !Array.isArray(e.value)) {
      const allowed = Object.keys((e.schema as TObject).properties ?? {})
      const extra = Object.keys(e.value).filter((k) => !allowed.includes(k))
      if (extra.length > 0) {
        for (const k of extra) seen.set(prefix + (path ? path + '.' : '') + k, unknownProblem)
        continue
      }
    }
    if (e.schema.minProperties !== undefined && path === '') { param = '(body)'; problem = 'at least one property is required' }
    // An enumeration (a union of literals) names its allowed values.
    const members = e.schema.anyOf as { const?: unknown }[] | undefined
    if (e.type === ValueErrorType.Union && members?.every((m) => m.const !== undefined)) problem = `must be one of: ${members.map((m) => String(m.const)).join(', ')}`
    // Computed and store-set fields land here too, so say both.
    if (e.type === ValueErrorType.ObjectAdditionalProperties) problem = unknownProblem
    if (!seen.has(param)) seen.set(param, problem)
  }
  return [...seen].map(([param, problem]) => ({ param, problem }))
}

export function assertValid(schema: TObject, value: unknown, prefix = ''): void {
  const problems = schemaProblems(schema, value, prefix)
  if (problems.length > 0) throw invalidMany(problems)
}

/** The path of the first string containing U+0000, or undefined. */
export function nulPath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined
  if (typeof value !== 'object' || value === null) return undefined
  for (const [k, v] of Object.entries(value)) {
    const key = k.includes('\u0000') ? (path ? `${path}.(key)` : '(key)') : undefined
    if (key !== undefined) return key
    const found = nulPath(v, path ? `${path}.${k}` : k)
    if (found !== undefined) return found
  }
  return undefined
}
