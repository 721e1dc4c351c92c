// Query parameters of the panel's pages, read by hand (the panel's routes have no schema):
// a bad value is a 400 naming the parameter and its allowed values, like the APIs answer.
import { invalid } from '../kernel/errors.js'
import { CHART_RANGES, type ChartRange } from '../ops/metric-buckets.js'

/** The query as plain strings (the first value of a repeated parameter). */
export function queryText(query: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    const first = Array.isArray(v) ? v[0] : v
    if (typeof first === 'string') out[k] = first
  }
  return out
}

/** `range` of the traffic charts: hour (default), day or week. */
export function chartRange(query: unknown): ChartRange {
  const given = queryText(query).range
  if (given === undefined || given === '') return 'hour'
  if (!(CHART_RANGES as readonly string[]).includes(given)) throw invalid('range', `must be one of ${CHART_RANGES.join(', ')}`)
  return given as ChartRange
}

/**
 * The query's parameters, each of `allowed` at most: another is a 400 naming it (as the APIs
 * answer a parameter they do not take).
 */
export function onlyParameters(query: unknown, allowed: readonly string[]): Record<string, string> {
  const text = queryText(query)
  const unknown = Object.keys(text).filter((k) => !allowed.includes(k))
  if (unknown.length > 0) throw invalid(unknown[0] as string, `unknown parameter${allowed.length > 0 ? `; this page takes ${allowed.join(', ')}` : ''}`)
  return text
}

/** A whole number parameter from `min` on, or undefined when not given. */
export function wholeParameter(text: Readonly<Record<string, string>>, name: string, min = 0): number | undefined {
  const given = text[name]
  if (given === undefined || given === '') return undefined
  if (!/^\d+$/.test(given) || !Number.isSafeInteger(Number(given)) || Number(given) < min) throw invalid(name, `must be a whole number from ${min}`)
  return Number(given)
}
