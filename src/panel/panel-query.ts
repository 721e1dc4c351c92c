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
