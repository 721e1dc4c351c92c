// Subscription targeting. When no usable managed credential defines webhook interests,
// delivery runs in firehose mode (every event is sent); as soon as one does, it runs in
// targeted mode and an event is queued only if some credential's interests match it. Each
// queued delivery records the credentials that matched.
import type { Db } from '../store/database.js'
import type { WebhookInterest } from '../auth/credentials.js'
import type { EventAction, EventResourceType } from './event-payload.js'

export type RoutingMode = 'firehose' | 'targeted'

export interface InterestHolder {
  readonly credentialId: string
  readonly interests: readonly WebhookInterest[]
}

export interface Routing {
  readonly mode: RoutingMode
  readonly matched: readonly string[]
}

/** Active, unexpired managed credentials with at least one interest. */
export async function loadInterestHolders(db: Db, now = Date.now()): Promise<InterestHolder[]> {
  const rows = await db.selectFrom('credentials').select(['id', 'webhook_interests', 'expires_at'])
    .where('status', '=', 'active').orderBy('id').execute()
  const out: InterestHolder[] = []
  for (const row of rows) {
    if (row.expires_at !== null && row.expires_at !== undefined && Number(row.expires_at) <= now) continue
    const raw = row.webhook_interests
    const interests = (raw === null || raw === undefined ? [] : typeof raw === 'string' ? JSON.parse(raw) : raw) as WebhookInterest[]
    if (Array.isArray(interests) && interests.length > 0) out.push({ credentialId: row.id as string, interests })
  }
  return out
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
