// The event body: the spec's table (id, occurredAt, resourceType, resourceId, action,
// updatedAt, snapshot: the public document, null on delete tombstones) plus the change's
// feed position and origin kind (docs/sync.md). It is
// serialised once, at write time, and stored as the exact bytes every attempt signs.
import { randomUUID } from 'node:crypto'
import type { ChangeEvent } from '../store/content-store.js'

/** A family's declared `eventType` (`entry`, `product`, `order`). */
export type EventResourceType = string
export type EventAction = 'created' | 'updated' | 'deleted'

export interface WebhookEvent {
  readonly id: string
  readonly occurredAt: string
  readonly resourceType: EventResourceType
  readonly resourceId: number
  readonly action: EventAction
  readonly updatedAt: string
  readonly snapshot: Record<string, unknown> | null
  /** The change's position in the feed (`position` of /changes items, `after=` to resume). */
  readonly position: number | null
  /** Who caused it: the kind only (a webhook goes to a receiver, not to one credential). */
  readonly origin: { readonly kind: string }
}

export const newEventId = () => 'evt_' + randomUUID().replace(/-/g, '')
export const newDeliveryId = () => 'whd_' + randomUUID().replace(/-/g, '')

/** The event of a change, or undefined for families that do not emit webhooks. */
export function eventOf(change: ChangeEvent, id = newEventId()): WebhookEvent | undefined {
  const resourceType = change.resource.eventType
  if (!resourceType) return undefined
  return {
    id,
    occurredAt: new Date(change.occurredAt).toISOString(),
    resourceType,
    resourceId: change.resourceId,
    action: change.action,
    updatedAt: new Date(change.updatedAt).toISOString(),
    snapshot: change.action === 'deleted' ? null : change.doc,
    position: change.seq ?? null,
    origin: { kind: change.origin?.kind ?? 'system' },
  }
}

/** JSON text with the fields in the documented order. */
export function eventBody(e: WebhookEvent): string {
  return JSON.stringify({
    id: e.id, occurredAt: e.occurredAt, resourceType: e.resourceType, resourceId: e.resourceId,
    action: e.action, updatedAt: e.updatedAt, position: e.position, origin: e.origin, snapshot: e.snapshot,
  })
}
