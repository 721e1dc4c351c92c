// Schemas of the dead-letter queue's requests and answers, shared by the machine API
// routes and the admin API.
import { Type, type Static } from '@sinclair/typebox'
import { ApiError, invalid } from '../kernel/errors.js'
import type { DeliveryFilter } from './delivery-log.js'

const NullableDateTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()])

export const DeadLetterItem = Type.Object({
  id: Type.Integer({ description: 'Dead-letter item id (the delivery row); use it with replay' }),
  deliveryId: Type.String({ description: 'X-Gatehouse-Webhook-Id / webhook-id of the delivery' }),
  eventId: Type.String({ description: 'The payload id' }),
  kind: Type.Union([Type.Literal('event'), Type.Literal('test')]),
  status: Type.Union([Type.Literal('failed'), Type.Literal('queued')], { description: 'failed: attempts exhausted; queued: replayed, awaiting delivery' }),
  resourceType: Type.Union([Type.String(), Type.Null()]),
  resourceId: Type.Union([Type.Integer(), Type.Null()]),
  action: Type.Union([Type.String(), Type.Null()]),
  attempts: Type.Integer(),
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  routingMode: Type.String({ description: 'firehose or targeted' }),
  matchedCredentials: Type.Array(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  lastAttemptAt: NullableDateTime,
  deadLetteredAt: Type.String({ format: 'date-time' }),
  replayCount: Type.Integer(),
  replayedAt: NullableDateTime,
  nextAttemptAt: NullableDateTime,
}, { additionalProperties: false })

export const DlqQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('failed'), Type.Literal('queued')], { description: 'Default: both' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1..200' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'pagination.nextCursor of the previous page' })),
}, { additionalProperties: false })

export const ReplayBody = Type.Object({
  id: Type.Optional(Type.Integer({ minimum: 1, description: 'Replay this one item' })),
  mode: Type.Optional(Type.Union([Type.Literal('single'), Type.Literal('all')], { description: 'all: replay failed items, oldest first' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'all-mode only: at most this many (default 1000)' })),
}, { additionalProperties: false })

export const ReplayResultData = Type.Object({
  replayed: Type.Integer(),
  mode: Type.Union([Type.Literal('single'), Type.Literal('all')]),
  ids: Type.Array(Type.Integer()),
}, { additionalProperties: false })

export type ReplayRequest =
  | { readonly mode: 'single'; readonly id: number }
  | { readonly mode: 'all'; readonly limit: number }
  /** Any delivered or dead-lettered delivery by id (the delivery log). */
  | { readonly mode: 'delivery'; readonly id: number }
  /** What a delivery-log filter selects (its parameters as given, for the audit record). */
  | { readonly mode: 'filter'; readonly filter: DeliveryFilter; readonly params: Readonly<Record<string, string>>; readonly limit: number }

/** Reads a validated replay body: exactly one of `id` or `mode=all`. */
export function replayRequest(body: Static<typeof ReplayBody> | undefined): ReplayRequest {
  const b = body ?? {}
  if (b.mode === 'all') {
    if (b.id !== undefined) throw invalid('id', 'not allowed with mode=all')
    return { mode: 'all', limit: b.limit ?? 1000 }
  }
  if (b.id === undefined) {
    throw new ApiError('INVALID_REQUEST', 'Give either id or mode=all', [
      { param: 'id', problem: 'required unless mode is all' },
      { param: 'mode', problem: 'must be all when id is not given' },
      // `limit` bounds mode=all only: given without it, the caller likely meant mode=all.
      ...(b.limit !== undefined ? [{ param: 'limit', problem: 'only with mode=all' }] : []),
    ])
  }
  if (b.limit !== undefined) throw invalid('limit', 'only with mode=all')
  return { mode: 'single', id: b.id }
}
