// One attempt at one claimed delivery, and what it means for the row: delivered, retried
// later (backoff or Retry-After), or moved to the dead-letter queue once attempts reach
// the maximum. The worker and the sink's send-test both go through here.
import type { Logger } from 'pino'
import type { Database } from '../store/database.js'
import type { Settings } from '../settings.js'
import { markAttemptFailed, markDelivered, type ClaimedDelivery } from './delivery-queue.js'
import { deliveryHeaders } from './signer.js'
import { sendAttempt } from './transport.js'
import { retryDelayMs } from './backoff.js'
import { sinkUrl } from './sink-url.js'

export interface DeliveryContext {
  readonly database: Database
  readonly settings: Settings
  readonly logger: Logger
  readonly retryBaseMs: number
  readonly random?: () => number
  /** Records a 2xx; the worker batches these. Default: one UPDATE now. */
  readonly recordDelivered?: (claim: ClaimedDelivery, statusCode: number) => Promise<void>
}

export interface AttemptOutcome {
  readonly status: 'delivered' | 'retrying' | 'failed'
  readonly statusCode: number | null
  readonly error: string | null
  readonly nextAttemptAt: number | null
  readonly durationMs: number
}

export async function attemptDelivery(ctx: DeliveryContext, claim: ClaimedDelivery): Promise<AttemptOutcome> {
  const { settings, database } = ctx
  const maxAttempts = settings.webhookMaxAttempts
  const url = claim.kind === 'test' ? sinkUrl(settings) : settings.webhookUrl
  const secret = settings.webhookSecret

  // A lease that expired while the final attempt was in flight (the worker died): the
  // receiver may or may not have it, and the attempts are spent, so it is dead-lettered.
  if (claim.attempts > maxAttempts) {
    await markAttemptFailed(database.db, claim, { statusCode: null, error: 'attempts exhausted (last attempt interrupted)', nextAttemptAt: null })
    return { status: 'failed', statusCode: null, error: 'attempts exhausted', nextAttemptAt: null, durationMs: 0 }
  }
  const result = url && secret
    ? await sendAttempt(url, claim.body, deliveryHeaders(secret, claim.deliveryId, Math.floor(Date.now() / 1000), claim.body, claim.attempts), settings.webhookTimeoutSeconds * 1000)
    : { ok: false, statusCode: null, retryAfterMs: null, error: 'webhook delivery is not configured', durationMs: 0 }

  if (result.ok) {
    const code = result.statusCode ?? 200
    await (ctx.recordDelivered ? ctx.recordDelivered(claim, code) : markDelivered(database.db, [claim.id], claim.workerId, code))
    return { status: 'delivered', statusCode: result.statusCode, error: null, nextAttemptAt: null, durationMs: result.durationMs }
  }
  const error = result.error ?? 'failed'
  const now = Date.now()
  const nextAttemptAt = claim.attempts >= maxAttempts ? null : now + retryDelayMs(claim.attempts, ctx.retryBaseMs, result.retryAfterMs, ctx.random)
  await markAttemptFailed(database.db, claim, { statusCode: result.statusCode, error, nextAttemptAt, now })
  ctx.logger.warn({ deliveryId: claim.deliveryId, eventId: claim.eventId, attempt: claim.attempts, statusCode: result.statusCode, error,
    outcome: nextAttemptAt === null ? 'dead-lettered' : 'retry' }, 'webhook delivery attempt failed')
  return { status: nextAttemptAt === null ? 'failed' : 'retrying', statusCode: result.statusCode, error, nextAttemptAt, durationMs: result.durationMs }
}
