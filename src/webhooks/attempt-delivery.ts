// One attempt at one claimed delivery, and what it means for the row: delivered, retried
// later (backoff or Retry-After), or moved to the dead-letter queue once attempts reach
// the maximum. The worker and the sink's send-test both go through here. Every attempt is
// also recorded for the delivery log (status, latency, headers sent, answer excerpt).
import type { Logger } from 'pino'
import type { Database } from '../store/database.js'
import type { Settings } from '../kernel/settings.js'
import { markAttemptFailed, markDelivered, type ClaimedDelivery } from './delivery-queue.js'
import { deliveryHeaders } from './signer.js'
import { sendAttempt, type AttemptResult } from './transport.js'
import { retryDelayMs } from './backoff.js'
import { sinkUrl } from './sink-url.js'
import { insertAttempts, type AttemptEntry } from './attempt-log.js'

export interface DeliveryContext {
  readonly database: Database
  readonly settings: Settings
  readonly logger: Logger
  readonly retryBaseMs: number
  readonly random?: () => number
  /** Records a 2xx; the worker batches these. Default: one UPDATE now. */
  readonly recordDelivered?: (claim: ClaimedDelivery, statusCode: number) => Promise<void>
  /** Records an attempt for the delivery log; the worker batches these. Default: one INSERT now. */
  readonly recordAttempt?: (entry: AttemptEntry) => void
  /** Told every outcome (the charts count them). */
  readonly onOutcome?: (status: AttemptOutcome['status']) => void
}

export interface AttemptOutcome {
  readonly status: 'delivered' | 'retrying' | 'failed'
  readonly statusCode: number | null
  readonly error: string | null
  readonly nextAttemptAt: number | null
  readonly durationMs: number
}

const NOT_SENT = { retryAfterMs: null, durationMs: 0, answer: Promise.resolve(null) }

export async function attemptDelivery(ctx: DeliveryContext, claim: ClaimedDelivery): Promise<AttemptOutcome> {
  const { settings, database } = ctx
  const maxAttempts = settings.webhookMaxAttempts
  const url = claim.kind === 'test' ? sinkUrl(settings) : settings.webhookUrl
  const secret = settings.webhookSecret
  const attemptedAt = Date.now()
  const record = async (outcome: AttemptOutcome, headers: Record<string, string>, result: Pick<AttemptResult, 'answer'>) => {
    const entry: AttemptEntry = {
      deliveryRowId: claim.id, attempt: claim.attempts, attemptedAt, durationMs: outcome.durationMs, statusCode: outcome.statusCode,
      outcome: outcome.status, error: outcome.error, headers, answer: result.answer, workerId: claim.workerId,
    }
    if (ctx.recordAttempt) ctx.recordAttempt(entry)
    else await insertAttempts(database.db, [entry]).catch((err: unknown) => ctx.logger.warn({ err }, 'could not record a webhook delivery attempt'))
    ctx.onOutcome?.(outcome.status)
    return outcome
  }

  // A lease that expired while the final attempt was in flight (the worker died): the
  // receiver may or may not have it, and the attempts are spent, so it is dead-lettered.
  if (claim.attempts > maxAttempts) {
    const error = 'attempts exhausted (last attempt interrupted)'
    await markAttemptFailed(database.db, claim, { statusCode: null, error, nextAttemptAt: null })
    return record({ status: 'failed', statusCode: null, error, nextAttemptAt: null, durationMs: 0 }, {}, NOT_SENT)
  }
  const headers = url && secret
    ? {
      ...deliveryHeaders(secret, claim.deliveryId, Math.floor(attemptedAt / 1000), claim.body, claim.attempts), 'content-length': String(Buffer.byteLength(claim.body)),
      // The feed's position of the change, as in the body: a receiver that missed deliveries resumes from /changes?after=<it>.
      ...(claim.position !== undefined && claim.position !== null ? { 'x-gatehouse-position': String(claim.position) } : {}),
    }
    : {}
  const result = url && secret
    ? await sendAttempt(url, claim.body, headers, settings.webhookTimeoutSeconds * 1000)
    : { ok: false, statusCode: null, error: 'webhook delivery is not configured', ...NOT_SENT }

  if (result.ok) {
    const code = result.statusCode ?? 200
    await (ctx.recordDelivered ? ctx.recordDelivered(claim, code) : markDelivered(database.db, [claim.id], claim.workerId, code))
    return record({ status: 'delivered', statusCode: result.statusCode, error: null, nextAttemptAt: null, durationMs: result.durationMs }, headers, result)
  }
  const error = result.error ?? 'failed'
  const now = Date.now()
  const nextAttemptAt = claim.attempts >= maxAttempts ? null : now + retryDelayMs(claim.attempts, ctx.retryBaseMs, result.retryAfterMs, ctx.random)
  await markAttemptFailed(database.db, claim, { statusCode: result.statusCode, error, nextAttemptAt, now })
  ctx.logger.warn({ deliveryId: claim.deliveryId, eventId: claim.eventId, attempt: claim.attempts, statusCode: result.statusCode, error,
    outcome: nextAttemptAt === null ? 'dead-lettered' : 'retry' }, 'webhook delivery attempt failed')
  return record({ status: nextAttemptAt === null ? 'failed' : 'retrying', statusCode: result.statusCode, error, nextAttemptAt, durationMs: result.durationMs }, headers, result)
}
