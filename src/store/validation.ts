// Validation of write input against the declared schemas, reporting every bad field.
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import type { TObject, TSchema } from '@sinclair/typebox'
import { ValueErrorType } from '@sinclair/typebox/errors'
import { invalidMany, type ErrorDetail } from '../kernel/errors.js'

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
  // Text PostgreSQL cannot store or query: refused for both engines alike.
  const bad = textProblem(value)
  if (bad !== undefined) return [{ param: prefix + bad.param, problem: bad.problem }]
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
    if (e.type === ValueErrorType.Union) {
      const branches = (e.schema.anyOf ?? []) as TSchema[]
      const literals = branches.map((b) => b.const)
      // An enumeration: say which values it takes.
      if (literals.length > 0 && literals.every((v) => typeof v === 'string')) problem = `must be one of: ${literals.join(', ')}`
      // Otherwise say what each branch takes ("must be a date-time or null"), not "Expected union value".
      else if (branches.every((b) => typeof b.type === 'string')) problem = `must be ${branches.map(branchText).join(' or ')}`
      // A nullable object given as an object: report inside it, field by field.
      const objects = branches.filter((b) => b.type === 'object')
      if (objects.length === 1 && typeof e.value === 'object' && e.value !== null && !Array.isArray(e.value)) {
        for (const d of schemaProblems(objects[0] as TObject, e.value, prefix + (path ? path + '.' : ''), unknownProblem)) if (!seen.has(d.param)) seen.set(d.param, d.problem)
        continue
      }
    }
    if (e.schema.minProperties !== undefined && path === '') { param = '(body)'; problem = 'at least one property is required' }
    // Computed and store-set fields land here too, so say both.
    if (e.type === ValueErrorType.ObjectAdditionalProperties) problem = unknownProblem
    if (!seen.has(param)) seen.set(param, problem)
  }
  return [...seen].map(([param, problem]) => ({ param, problem }))
}

/** What one branch of a union takes, in words. */
function branchText(b: TSchema): string {
  if (b.type === 'null') return 'null'
  if (b.type === 'string' && b.format === 'date-time') return 'a date-time (RFC 3339 with a time zone, of a day that exists)'
  if (b.type === 'string') return b.format ? `a ${b.format} string` : 'a string'
  if (b.type === 'integer') return 'an integer'
  return `${/^[aeiou]/.test(String(b.type)) ? 'an' : 'a'} ${String(b.type)}`
}

/**
 * Whether a schema's problems name `member` or something inside it: a body's rules then run
 * only on the members the schema passed, so every bad member is named at once.
 */
export function flaggedBy(problems: readonly ErrorDetail[]): (member: string) => boolean {
  return (member) => problems.some((d) => d.param === member || d.param.startsWith(`${member}.`))
}

export function assertValid(schema: TObject, value: unknown, prefix = ''): void {
  const problems = schemaProblems(schema, value, prefix)
  if (problems.length > 0) throw invalidMany(problems)
}

/**
 * The first string (or object key) that no engine can store and compare faithfully: one
 * with U+0000 (PostgreSQL text cannot hold it) or with a lone UTF-16 surrogate (`\ud800`
 * without its pair: not Unicode text; PostgreSQL's JSON operators fail on its escape).
 * Walks with an explicit stack, so a deeply nested value cannot overflow the call stack.
 */
export function textProblem(value: unknown, prefix = ''): { param: string; problem: string } | undefined {
  if (value === undefined || flatAndClean(value)) return undefined
  const stack: [unknown, string][] = [[value, prefix]]
  while (stack.length > 0) {
    const [v, path] = stack.pop() as [unknown, string]
    if (typeof v === 'string') {
      const problem = stringProblem(v)
      if (problem) return { param: path || '(body)', problem }
      continue
    }
    if (typeof v !== 'object' || v === null) continue
    const entries = Object.entries(v)
    // Reversed onto the stack, so the first bad field in document order is the one named.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, child] = entries[i]
      const keyProblem = stringProblem(k)
      if (keyProblem) return { param: path ? `${path}.(key)` : '(key)', problem: keyProblem }
      stack.push([child, path ? `${path}.${k}` : k])
    }
  }
  return undefined
}

/**
 * Whether `value` is an object of strings and scalars only, none with a problem: a query
 * string, the common case, checked without the walk's paths and tuples (every machine request
 * goes through here; the walk cost three times as much for a two-parameter query).
 */
function flatAndClean(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const fields = value as Record<string, unknown>
  for (const k in fields) {
    const v = fields[k]
    if ((typeof v === 'object' && v !== null) || stringProblem(k) !== undefined || (typeof v === 'string' && stringProblem(v) !== undefined)) return false
  }
  return true
}

// With the u flag a surrogate pair is one astral code point; only a lone surrogate is in Cs.
const LONE_SURROGATE = /\p{Cs}/u

function stringProblem(s: string): string | undefined {
  if (s.includes('\u0000')) return 'must not contain NUL characters'
  if (LONE_SURROGATE.test(s)) return 'must not contain lone UTF-16 surrogates (U+D800–U+DFFF without their pair)'
  return undefined
}
