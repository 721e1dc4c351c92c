// The sink's "Send test webhook": a synthetic delivery to the dev sink through the real
// path (a queue row, the signer, the transport and the attempt bookkeeping). The row is
// written already claimed by this request, so a worker does not race it for the first
// attempt; if that attempt fails, the worker retries it like any other delivery.
import { randomUUID } from 'node:crypto'
import { ApiError } from '../kernel/errors.js'
import { insertDeliveries } from './outbox.js'
import { newDeliveryId, newEventId } from './event-payload.js'
import { attemptDelivery, type AttemptOutcome, type DeliveryContext } from './attempt-delivery.js'

export interface TestDeliveryResult {
  readonly id: number
  readonly deliveryId: string
  readonly eventId: string
  readonly outcome: AttemptOutcome
}

export async function sendTestDelivery(ctx: DeliveryContext, triggeredBy: string, now = Date.now()): Promise<TestDeliveryResult> {
  if (!ctx.settings.webhookSecret) throw new ApiError('CONFLICT', 'Set PLUGIN_GATEHOUSE_WEBHOOK_SECRET so the sink can verify signatures')
  const eventId = newEventId()
  const deliveryId = newDeliveryId()
  const leaseToken = randomUUID()
  const owner = `send-test:${triggeredBy}`.slice(0, 200)
  const body = JSON.stringify({ id: eventId, eventKind: 'test', isTest: true, triggeredAt: new Date(now).toISOString(), triggeredBy })
  await insertDeliveries(ctx.database.db, [{
    delivery_id: deliveryId, event_id: eventId, kind: 'test', resource_type: null, resource_id: null, action: null, change_seq: null,
    body, routing_mode: 'test', matched_credentials: '[]', status: 'queued', attempts: 1, next_attempt_at: now, created_at: now,
    lease_owner: owner, lease_token: leaseToken, lease_until: now + ctx.settings.webhookTimeoutSeconds * 1000 + 15_000,
  }])
  const row = await ctx.database.db.selectFrom('webhook_deliveries').select('id').where('delivery_id', '=', deliveryId).executeTakeFirstOrThrow()
  const id = Number(row.id)
  const outcome = await attemptDelivery(ctx, { id, deliveryId, eventId, kind: 'test', body, attempts: 1, leaseToken, workerId: owner })
  return { id, deliveryId, eventId, outcome }
}
