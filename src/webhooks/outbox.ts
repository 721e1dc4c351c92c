// The transactional outbox: a change hook that runs inside the content write's own
// transaction, after the change-log rows are appended, and queues one delivery per event.
// If the write rolls back, so do its deliveries; once it commits, none can be lost.
// Events are queued only while delivery is configured (a webhook URL is set).
import type { ChangeHook } from '../store/content-store.js'
import type { Db } from '../store/database.js'
import type { Settings } from '../kernel/settings.js'
import { eventBody, eventOf, newDeliveryId } from './event-payload.js'
import { routeEvent } from './targeting.js'
import { loadInterestHolders } from '../auth/credential-interests.js'

export interface NewDelivery {
  readonly delivery_id: string
  readonly event_id: string
  readonly kind: 'event' | 'test'
  readonly resource_type: string | null
  readonly resource_id: number | null
  readonly action: string | null
  readonly change_seq: number | null
  readonly body: string
  readonly routing_mode: string
  readonly matched_credentials: string
  readonly status: 'queued'
  readonly attempts: number
  readonly next_attempt_at: number
  readonly created_at: number
  readonly lease_owner?: string
  readonly lease_token?: string
  readonly lease_until?: number
}

// 18 columns a row: stays under SQLite's bound-parameter limit.
const BATCH = 1000

export async function insertDeliveries(db: Db, rows: readonly NewDelivery[]): Promise<void> {
  for (let start = 0; start < rows.length; start += BATCH) {
    await db.insertInto('webhook_deliveries').values(rows.slice(start, start + BATCH) as NewDelivery[]).execute()
  }
}

/** The outbox hook; `onQueued` lets an in-process worker look sooner than its next poll. */
export function outboxHook(settings: Settings, onQueued?: () => void): ChangeHook {
  return async (tx, changes) => {
    if (!settings.webhookUrl) return
    const emitting = changes.filter((c) => c.resource.eventType !== undefined)
    if (emitting.length === 0) return
    const now = Date.now()
    const holders = await loadInterestHolders(tx, now)
    const rows: NewDelivery[] = []
    for (const change of emitting) {
      const event = eventOf(change)
      if (!event) continue
      const routing = routeEvent(holders, event.resourceType, event.action)
      if (!routing) continue
      rows.push({
        delivery_id: newDeliveryId(), event_id: event.id, kind: 'event',
        resource_type: event.resourceType, resource_id: event.resourceId, action: event.action,
        change_seq: change.seq ?? null, body: eventBody(event),
        routing_mode: routing.mode, matched_credentials: JSON.stringify(routing.matched),
        status: 'queued', attempts: 0, next_attempt_at: now, created_at: now,
      })
    }
    if (rows.length === 0) return
    await insertDeliveries(tx, rows)
    onQueued?.()
  }
}
