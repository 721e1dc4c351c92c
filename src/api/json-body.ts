// JSON request bodies: a nesting limit checked on the raw text before parsing. Parsing a
// deeply nested body is cheap, but every recursive walk after it (validation, the NUL and
// surrogate check, canonical JSON for digests, JSON.stringify) would overflow the stack on
// 10,000 levels and answer 500. No request of ours needs more than a few levels.
import { ApiError } from '../kernel/errors.js'

/** Deepest nesting of objects and arrays a request body may have (docs/api.md). */
export const MAX_JSON_DEPTH = 64

/** Whether JSON text nests objects and arrays deeper than `max`; a scan, no recursion. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // a backslash escapes the next character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) {
      depth--
    }
  }
  return false
}

export function bodyTooDeep(): ApiError {
  return new ApiError('INVALID_REQUEST', `Request body nests deeper than ${MAX_JSON_DEPTH} levels`, [
    { param: '(body)', problem: `must not nest objects and arrays deeper than ${MAX_JSON_DEPTH} levels` },
  ])
}

/**
 * The first number in a parsed body that JavaScript does not hold exactly (beyond ±2^53 − 1),
 * by its dotted path: `stock: 1e308` was stored as it came and served as no integer, and
 * `9007199254740993` became another number before anything could check it. Depth is bounded
 * by MAX_JSON_DEPTH, checked first.
 */
export function inexactNumber(value: unknown, path = ''): string | undefined {
  if (typeof value === 'number') return Math.abs(value) > Number.MAX_SAFE_INTEGER ? path || '(body)' : undefined
  if (value === null || typeof value !== 'object') return undefined
  for (const [key, member] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    const found = inexactNumber(member, path ? `${path}.${key}` : String(key))
    if (found !== undefined) return found
  }
  return undefined
}

export function inexactNumberProblem(param: string): ApiError {
  return new ApiError('INVALID_REQUEST', `Invalid body: ${param}`, [
    { param, problem: `must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} (a number beyond that is not kept exactly)` },
  ])
}
