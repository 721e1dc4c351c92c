// Subscription targeting. When no usable managed credential defines webhook interests,
// delivery runs in firehose mode (every event is sent); as soon as one does, it runs in
// targeted mode and an event is queued only if some credential's interests match it. Each
// queued delivery records the credentials that matched.
import type { InterestHolder } from '../auth/credential-interests.js'
import type { EventAction, EventResourceType } from './event-payload.js'

export type RoutingMode = 'firehose' | 'targeted'

export interface Routing {
  readonly mode: RoutingMode
  readonly matched: readonly string[]
}


export function routingModeOf(holders: readonly InterestHolder[]): RoutingMode {
  return holders.length === 0 ? 'firehose' : 'targeted'
}

/** How an event is routed, or undefined when targeted mode sends it to nobody. */
export function routeEvent(holders: readonly InterestHolder[], resourceType: EventResourceType, action: EventAction): Routing | undefined {
  if (holders.length === 0) return { mode: 'firehose', matched: [] }
  const matched = holders
    .filter((h) => h.interests.some((i) => i.resourceType === resourceType && i.actions.includes(action)))
    .map((h) => h.credentialId)
  return matched.length > 0 ? { mode: 'targeted', matched } : undefined
}
