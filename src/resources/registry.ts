// The set of resource families one app serves, and everything derived from it: the served
// families, the change-feed types, the webhook event types, the boundary axes. An app is
// built with one registry (`buildApp({ resources })`, default: every family declared in this
// folder), so a family declared elsewhere (a test, an extension) gets tables, routes, scopes,
// feed and contract by being in the list, with no other file changed.
import type { FamilyFlag, Resource } from './declare.js'
import { boundaryAxesOf, type BoundaryAxis } from './boundary-axes.js'

export interface ResourceRegistry {
  /** Every family, in declaration order (the order of docs and contracts). */
  readonly all: readonly Resource[]
  /** Families the machine API serves (those with a read scope). */
  readonly served: readonly Resource[]
  /** `/changes` `types` values, in declaration order. */
  readonly changeFeedTypes: readonly string[]
  /** Webhook event `resourceType` values (`entry`, `product`, `order`). */
  readonly eventTypes: readonly string[]
  /** Boundary axes (`sections`, `entryIds`, `productIds`): what workflow and credential boundaries may list. */
  readonly boundaryAxes: readonly BoundaryAxis[]
  byType(type: string): Resource | undefined
  byChangeType(changeType: string): Resource | undefined
  byEventType(eventType: string): Resource | undefined
  /** Served families whose flag (if any) is on. */
  enabled(flags: Readonly<Record<FamilyFlag, boolean>>): readonly Resource[]
}

export function createRegistry(resources: readonly Resource[]): ResourceRegistry {
  const unique = (key: (r: Resource) => string | undefined, what: string) => {
    const seen = new Map<string, Resource>()
    for (const r of resources) {
      const k = key(r)
      if (k === undefined) continue
      if (seen.has(k)) throw new Error(`${r.type}: ${what} "${k}" is also used by ${seen.get(k)?.type}`)
      seen.set(k, r)
    }
    return seen
  }
  const byType = unique((r) => r.type, 'type')
  const byChangeType = unique((r) => r.changeType, 'change type')
  const byEventType = unique((r) => r.eventType, 'event type')
  unique((r) => r.table, 'table')
  for (const r of resources) {
    for (const ref of [...Object.values(r.references ?? {}), ...(r.owner ? [r.owner] : [])]) {
      if (!byType.has(ref.type)) throw new Error(`${r.type}: references unknown family ${ref.type}`)
    }
  }
  const axes = boundaryAxesOf(resources)
  const axisNames = unique((r) => r.boundaryAxis?.name, 'boundary axis')
  for (const r of resources) {
    for (const [axis, column] of Object.entries(r.readBoundary ?? {})) {
      const a = axes.find((x) => x.name === axis)
      if (!a) throw new Error(`${r.type}: read boundary names unknown axis ${axis}; declared: ${[...axisNames.keys()].join(', ')}`)
      if (column === 'id' && a.values !== 'id') throw new Error(`${r.type}: read boundary axis ${axis} lists text, not ids`)
    }
  }
  const served = resources.filter((r) => r.scope !== undefined)
  return Object.freeze({
    all: Object.freeze([...resources]),
    served: Object.freeze(served),
    changeFeedTypes: Object.freeze(served.filter((r) => r.changeFeed !== false).map((r) => r.changeType)),
    eventTypes: Object.freeze([...byEventType.keys()]),
    boundaryAxes: Object.freeze(axes),
    byType: (type: string) => byType.get(type),
    byChangeType: (changeType: string) => byChangeType.get(changeType),
    byEventType: (eventType: string) => byEventType.get(eventType),
    enabled: (flags: Readonly<Record<FamilyFlag, boolean>>) => served.filter((r) => r.flag === undefined || flags[r.flag]),
  })
}
