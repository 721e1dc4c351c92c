// `filter`: comma-separated `path:value`, all must hold. A plain value matches exactly
// (against the value's JSON text, or a string's text); `~value` is a case-insensitive
// contains; `*` matches any run of characters; `\,` and `\:` escape.
import type { TObject } from '@sinclair/typebox'
import { invalid } from '../contract/errors.js'
import { likePattern, type PathTest } from '../store/record-query.js'
import { resolvePath } from './projection.js'

export const MAX_FILTERS = 20

export interface FilterTarget {
  readonly schema: TObject
  readonly sensitiveKeys: readonly string[]
  /** Sensitive keys the caller may filter on. */
  readonly sensitiveAllowed: boolean
  readonly sensitiveScope?: string
}

/** Splits on unescaped separators and unescapes. */
function splitEscaped(text: string, sep: string, limit = Infinity): string[] {
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
