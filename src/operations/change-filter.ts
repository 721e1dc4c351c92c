// `filter` on /changes: the list grammar (exact, `~` contains, `*` wildcards, dot paths into
// the record, src/api/filter.ts) applied to each change's snapshot, plus the change's own
// `action:` and `resourceType:`. A path must exist in every type the page covers; the error
// names the type that lacks it. The tests run in SQL on the record as it is now, inside the
// bounded range of positions a filtered page reads (list-changes.ts), never over the log.
import type { Resource } from '../resources/index.js'
import { ApiError, invalid } from '../kernel/errors.js'
import type { Condition } from '../store/record-query.js'
import { parseFilter, splitEscaped } from '../kernel/filter.js'

export interface ChangeFilter {
  readonly resourceType?: string
  readonly action?: string
  /** Snapshot expressions, still escaped, joined by commas (parsed per family by snapshotConditions). */
  readonly snapshot?: string
}

const ACTIONS = ['created', 'updated', 'deleted']

export function parseChangeFilter(text: string, servedTypes: readonly string[]): ChangeFilter {
  const out: { resourceType?: string; action?: string; snapshot?: string } = {}
  const rest: string[] = []
  for (const expr of splitEscaped(text, ',').filter((e) => e.trim() !== '')) {
    const [path, value] = splitEscaped(expr, ':', 2)
    if (path.trim() === 'action') {
      if (!ACTIONS.includes(value)) throw invalid('filter', `action:${value ?? ''} is not an action; must be one of: ${ACTIONS.join(', ')}`)
      out.action = value
    } else if (path.trim() === 'resourceType') {
      if (!servedTypes.includes(value)) throw invalid('filter', `resourceType:${value ?? ''} is not a feed type; must be one of: ${servedTypes.join(', ')}`)
      out.resourceType = value
    } else rest.push(expr)
  }
  if (rest.length > 0) out.snapshot = rest.join(',')
  return out
}

/** The snapshot expressions as conditions on `r`'s records; a 400 naming the type when a path is not one of its fields. */
export function snapshotConditions(r: Resource, text: string, withSensitive: boolean): Condition[] {
  try {
    return parseFilter(text, { schema: r.fullItem, sensitiveKeys: r.sensitiveKeys, sensitiveAllowed: withSensitive, sensitiveScope: r.sensitiveScope })
      .map((test) => ({ kind: 'path', test }))
  } catch (err) {
    if (!(err instanceof ApiError) || err.details === undefined) throw err
    throw invalid('filter', `type ${r.changeType}: ${err.details[0].problem} (a filter path must exist in every type of the page; name types to narrow it)`)
  }
}
