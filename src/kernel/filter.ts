// `filter`: comma-separated `path:value`, all must hold. A plain value matches exactly
// (against the value's JSON text, or a string's text); `~value` is a case-insensitive
// contains; `*` matches any run of characters; `\,` and `\:` escape. One grammar, two
// evaluators: stored records run the parsed tests in SQL (src/store/record-query.ts),
// provider items (src/providers/) run the same tests here, in JavaScript.
import type { TObject } from '@sinclair/typebox'
import { invalid } from './errors.js'
import { likePattern } from './path-test.js'
import { type PathTest } from './path-test.js'
import { resolvePath } from './projection.js'
import { likeMatches } from './like-match.js'

export const MAX_FILTERS = 20

export interface FilterTarget {
  readonly schema: TObject
  readonly sensitiveKeys: readonly string[]
  /** Sensitive keys the caller may filter on. */
  readonly sensitiveAllowed: boolean
  readonly sensitiveScope?: string
}

/** Splits on unescaped separators and unescapes (on `,`, escapes are kept for the next split). */
export function splitEscaped(text: string, sep: string, limit = Infinity): string[] {
  const out: string[] = []
  let cur = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '\\' && i + 1 < text.length && (text[i + 1] === ',' || text[i + 1] === ':' || text[i + 1] === '\\')) {
      cur += sep === ',' ? c + text[i + 1] : text[i + 1]
      i++
    } else if (c === sep && out.length < limit - 1) {
      out.push(cur)
      cur = ''
    } else cur += c
  }
  out.push(cur)
  return out
}

export function parseFilter(text: string, target: FilterTarget): PathTest[] {
  const exprs = splitEscaped(text, ',').filter((e) => e.trim() !== '')
  if (exprs.length === 0) throw invalid('filter', 'at least one path:value expression is required')
  if (exprs.length > MAX_FILTERS) throw invalid('filter', `at most ${MAX_FILTERS} expressions`)
  return exprs.map((expr) => {
    const [pathText, value] = splitEscaped(expr, ':', 2)
    if (value === undefined) throw invalid('filter', `"${expr}" is not path:value`)
    const path = pathText.trim().split('.')
    if (path.some((p) => !/^[A-Za-z0-9_-]{1,64}$/.test(p))) throw invalid('filter', `"${pathText}" is not a dot path of field names`)
    const sensitive = target.sensitiveKeys.includes(path[0])
    if (sensitive && !target.sensitiveAllowed) throw invalid('filter', `"${path[0]}" requires scope ${target.sensitiveScope ?? 'read_sensitive'}`)
    const resolved = resolvePath(target.schema, path)
    if (typeof resolved === 'string') {
      const valid = Object.keys(target.schema.properties).filter((k) => target.sensitiveAllowed || !target.sensitiveKeys.includes(k))
      throw invalid('filter', `${resolved} in "${pathText}"; valid fields: ${valid.join(', ')}`)
    }
    if (value.length > 500) throw invalid('filter', 'values are limited to 500 characters')
    const contains = value.startsWith('~')
    const raw = contains ? value.slice(1) : value
    const wildcard = raw.includes('*')
    const base = { source: sensitive ? 'sensitive' as const : 'doc' as const, path, arrayAt: resolved.arrayAt, orElements: resolved.freeForm && resolved.arrayAt === undefined }
    if (contains || wildcard) return { ...base, op: 'like' as const, value: likePattern(raw, { contains, wildcard: true }) }
    return { ...base, op: 'exact' as const, value: raw }
  })
}

/** Whether a document passes every test, with the semantics the SQL evaluation has. */
export function matchesFilter(doc: unknown, tests: readonly PathTest[]): boolean {
  return tests.every((t) => holds(doc, t))
}

function holds(doc: unknown, t: PathTest): boolean {
  if (t.arrayAt === undefined) {
    const value = valueAt(doc, t.path)
    if (compare(value, t)) return true
    // Free-form values: the path also holds when any element of an array there matches.
    return t.orElements === true && Array.isArray(value) && value.some((el) => compare(el, t))
  }
  const array = valueAt(doc, t.path.slice(0, t.arrayAt))
  const inner = t.path.slice(t.arrayAt)
  return Array.isArray(array) && array.some((el) => compare(valueAt(el, inner), t))
}

/** The value at a path of object keys; undefined (SQL NULL) when the path leaves the objects. */
function valueAt(doc: unknown, path: readonly string[]): unknown {
  let node = doc
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

function compare(value: unknown, t: PathTest): boolean {
  if (value === undefined) return false
  if (t.op === 'exact') return JSON.stringify(value) === t.value || (typeof value === 'string' && value === t.value)
  // LIKE compares the plain text: strings unquoted, other values as JSON text; null has none.
  if (value === null) return false
  return likeMatches(t.value, typeof value === 'string' ? value : JSON.stringify(value))
}

