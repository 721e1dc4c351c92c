// The delivery log: every queued, delivered and dead-lettered delivery (delivered ones are
// kept for a week), filtered by status, event type, resource, matched credential and time,
// newest first, each with its attempts and payload; and replay of the deliveries a filter
// selects. The filter is read from query text by one function, so the admin API and the
// control panel accept exactly the same parameters and name the bad one alike.
import { sql, type SelectQueryBuilder } from 'kysely'
import type { Database, Db, DialectAdapter } from '../store/database.js'
import { invalidEach, notFound, type ErrorDetail } from '../kernel/errors.js'
import { isRealMoment } from '../kernel/calendar.js'
import { listAttempts, type DeliveryAttempt } from './attempt-log.js'
import type { DeliveryRecord, ReplayResult } from './dead-letters.js'

export const DELIVERY_STATUSES = ['queued', 'delivered', 'failed'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]
const ACTIONS = ['created', 'updated', 'deleted'] as const
/**
 * Event types a filter accepts, for the families' event types (`registry.eventTypes`):
 * `product.updated`, `product` (any action), `test`.
 */
export function filterEventTypes(resourceTypes: readonly string[]): string[] {
  return ['test', ...resourceTypes.flatMap((t) => [t, ...ACTIONS.map((a) => `${t}.${a}`)])]
}
/** Replay by filter takes at most this many deliveries at a time, oldest first. */
export const REPLAY_FILTER_LIMIT = 1000

export interface DeliveryFilter {
  readonly status?: DeliveryStatus
  /** `product.updated`, `product` or `test`. */
  readonly eventType?: string
  readonly resourceType?: string
  readonly resourceId?: number
  /** Deliveries whose routing matched this credential's webhook interests. */
  readonly credential?: string
  /** Created at or after (ms). */
  readonly since?: number
  /** Created before (ms). */
  readonly until?: number
}

/** The filter's query parameters as text (what links and forms carry). */
export interface DeliveryFilterText {
  readonly status?: string
  readonly eventType?: string
  readonly resource?: string
  readonly credential?: string
  readonly since?: string
  readonly until?: string
}

export const FILTER_PARAMS = ['status', 'eventType', 'resource', 'credential', 'since', 'until'] as const

const DURATION = /^(\d{1,6})([mhd])$/
const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 }

const TIME_PROBLEM = 'a date-time (2025-01-31T12:00:00Z) or a time before now such as 90m, 24h or 7d'

/** A time as an RFC 3339 date-time, or a duration before now (`90m`, `24h`, `7d`). */
/** The moment `text` names (a date-time, or a duration before `now`), or null. */
function timeParam(text: string, now: number): number | null {
  const d = DURATION.exec(text)
  if (d) return now - Number(d[1]) * UNIT_MS[d[2]]
  const ms = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(text) && isRealMoment(text) ? Date.parse(text) : NaN
  return Number.isNaN(ms) ? null : ms
}

/**
 * Reads the filter parameters; a bad one is a 400 naming it and, for enumerations, the
 * allowed values. `eventTypes`: the app's webhook event types (`registry.eventTypes`).
 */
export function readDeliveryFilter(q: DeliveryFilterText, eventTypes: readonly string[], opts: { now?: number; prefix?: string } = {}): DeliveryFilter {
  const now = opts.now ?? Date.now()
  // Every bad parameter is named at once.
  const problems: ErrorDetail[] = []
  const invalid = (param: string, problem: string) => { problems.push({ param: `${opts.prefix ?? ''}${param}`, problem }) }
  const out: { -readonly [K in keyof DeliveryFilter]: DeliveryFilter[K] } = {}
  const given = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim())
  const status = given(q.status)
  if (status !== undefined) {
    if (!(DELIVERY_STATUSES as readonly string[]).includes(status)) invalid('status', `must be one of ${DELIVERY_STATUSES.join(', ')}`)
    else out.status = status as DeliveryStatus
  }
  const eventType = given(q.eventType)
  if (eventType !== undefined) {
    const allowed = filterEventTypes(eventTypes)
    if (!allowed.includes(eventType)) invalid('eventType', `must be one of ${allowed.join(', ')}`)
    else out.eventType = eventType
  }
  const resource = given(q.resource)
  if (resource !== undefined) {
    const m = /^([a-z][a-z0-9-]*)(?::([1-9]\d{0,15}))?$/.exec(resource)
    if (!m || !eventTypes.includes(m[1])) invalid('resource', `a resource type (${eventTypes.join(', ')}), optionally with an id: ${eventTypes[0] ?? 'product'}:12`)
    else {
      out.resourceType = m[1]
      if (m[2] !== undefined) out.resourceId = Number(m[2])
    }
  }
  const credential = given(q.credential)
  if (credential !== undefined) {
    if (!/^[A-Za-z0-9._:-]{1,128}$/.test(credential)) invalid('credential', 'not a credential id')
    else out.credential = credential
  }
  for (const name of ['since', 'until'] as const) {
    const text = given(q[name])
    if (text === undefined) continue
    const at = timeParam(text, now)
    if (at === null) invalid(name, TIME_PROBLEM)
    else out[name] = at
  }
  if (out.since !== undefined && out.until !== undefined && out.until <= out.since) invalid('until', 'must be after since')
  if (problems.length > 0) throw invalidEach(problems)
  return out
}

/** The filter as query parameters again (non-empty ones), for links that keep it. */
export function filterText(q: DeliveryFilterText): Record<string, string> {
  return Object.fromEntries(FILTER_PARAMS.map((k) => [k, q[k]?.trim() ?? '']).filter(([, v]) => v !== ''))
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function applyFilter<Q extends SelectQueryBuilder<any, any, any>>(adapter: DialectAdapter, query: Q, f: DeliveryFilter): Q {
  let q = query
  if (f.status) q = q.where('status', '=', f.status) as Q
  if (f.eventType === 'test') q = q.where('kind', '=', 'test') as Q
  else if (f.eventType) {
    const [type, action] = f.eventType.split('.')
    q = q.where('resource_type', '=', type) as Q
    if (action) q = q.where('action', '=', action) as Q
  }
  if (f.resourceType) q = q.where('resource_type', '=', f.resourceType) as Q
  if (f.resourceId !== undefined) q = q.where('resource_id', '=', f.resourceId) as Q
  // matched_credentials is the JSON text of an array of ids: the quoted id matches exactly one.
  if (f.credential) q = q.where(adapter.contains('matched_credentials', JSON.stringify(f.credential))) as Q
  if (f.since !== undefined) q = q.where('created_at', '>=', f.since) as Q
  if (f.until !== undefined) q = q.where('created_at', '<', f.until) as Q
  return q
}

export interface DeliverySummary extends DeliveryRecord {
  /** `product.updated`, or `test`. */
  readonly eventType: string
  readonly status: DeliveryStatus
  readonly deliveredAt: string | null
  readonly deadLetteredAt: string | null
}

export interface DeliveryDetail extends DeliverySummary {
  /** The exact body every attempt sent. */
  readonly payload: unknown
  readonly attempts: number
  readonly attemptLog: readonly DeliveryAttempt[]
}

const COLUMNS = ['id', 'delivery_id', 'event_id', 'kind', 'status', 'resource_type', 'resource_id', 'action', 'attempts', 'last_status_code',
  'last_error', 'routing_mode', 'matched_credentials', 'created_at', 'last_attempt_at', 'next_attempt_at', 'delivered_at', 'dead_lettered_at',
  'replay_count', 'replayed_at'] as const

const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString())

function toSummary(r: Record<string, unknown>): DeliverySummary {
  const kind = r.kind as 'event' | 'test'
  const status = r.status as DeliveryStatus
  return {
    id: Number(r.id), deliveryId: r.delivery_id as string, eventId: r.event_id as string, kind,
    eventType: kind === 'test' ? 'test' : `${String(r.resource_type)}.${String(r.action)}`,
    resourceType: (r.resource_type as string | null) ?? null, resourceId: r.resource_id === null ? null : Number(r.resource_id),
    status, attempts: Number(r.attempts), lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code),
    lastError: (r.last_error as string | null) ?? null, routingMode: r.routing_mode as string,
    matchedCredentials: JSON.parse(r.matched_credentials as string) as string[],
    createdAt: iso(r.created_at) as string, lastAttemptAt: iso(r.last_attempt_at), nextAttemptAt: status === 'queued' ? iso(r.next_attempt_at) : null,
    deliveredAt: status === 'delivered' ? iso(r.delivered_at) : null, deadLetteredAt: iso(r.dead_lettered_at),
    replayCount: Number(r.replay_count), replayedAt: iso(r.replayed_at),
  }
}

/** Deliveries the filter selects, newest first; `beforeId` continues after a page. */
export async function listDeliveries(database: Database, f: DeliveryFilter, page: { limit: number; beforeId?: number }): Promise<{ items: DeliverySummary[]; hasMore: boolean }> {
  let query = applyFilter(database.adapter, database.db.selectFrom('webhook_deliveries').select([...COLUMNS]), f)
  if (page.beforeId !== undefined) query = query.where('id', '<', page.beforeId)
  const rows = await query.orderBy('id', 'desc').limit(page.limit + 1).execute()
  return { items: rows.slice(0, page.limit).map(toSummary), hasMore: rows.length > page.limit }
}

/** How many deliveries the filter selects (`replayable`: only those replay would take). */
export async function countDeliveries(database: Database, f: DeliveryFilter, opts: { replayable?: boolean } = {}): Promise<number> {
  let query = applyFilter(database.adapter, database.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n')), f)
  if (opts.replayable) query = query.where('status', 'in', ['failed', 'delivered'])
  const row = await query.executeTakeFirst()
  return Number(row?.n ?? 0)
}

/** One delivery with its payload and every recorded attempt. */
export async function showDelivery(database: Database, id: number): Promise<DeliveryDetail> {
  const row = await database.db.selectFrom('webhook_deliveries').select([...COLUMNS, 'body']).where('id', '=', id).executeTakeFirst()
  if (!row) throw notFound(`No delivery with id ${id}`)
  return { ...toSummary(row), payload: JSON.parse(row.body as string), attemptLog: await listAttempts(database.db, id) }
}

/**
 * Sends deliveries again: those the filter selects (or the one `id`) that are dead-lettered
 * (`failed`) or `delivered`, at most `limit`, oldest first. Each goes back to the queue with
 * fresh attempts, the same delivery and event ids and the same body; queued ones are left
 * alone (they are on their way). A replayed dead letter leaves the DLQ once delivered.
 */
export async function replayMatching(db: Db, adapter: DialectAdapter, selection: { id: number } | { filter: DeliveryFilter; limit: number }, now = Date.now()): Promise<ReplayResult> {
  let pick = db.selectFrom('webhook_deliveries').select('id').where('status', 'in', ['failed', 'delivered'])
  if ('id' in selection) {
    const exists = await db.selectFrom('webhook_deliveries').select('id').where('id', '=', selection.id).executeTakeFirst()
    if (!exists) throw notFound(`No delivery with id ${selection.id}`)
    pick = pick.where('id', '=', selection.id)
  } else {
    pick = applyFilter(adapter, pick, selection.filter).orderBy('id').limit(selection.limit)
  }
  // The outer status check makes two concurrent replays take each delivery once.
  const { rows } = await sql<{ id: number }>`
    UPDATE webhook_deliveries
       SET status = 'queued', attempts = 0, next_attempt_at = ${now}, lease_owner = NULL, lease_token = NULL, lease_until = NULL,
           replay_count = replay_count + 1, replayed_at = ${now}
     WHERE status IN ('failed', 'delivered') AND id IN (${pick})
    RETURNING id`.execute(db)
  const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b)
  return { replayed: ids.length, mode: 'id' in selection ? 'single' : 'filter', ids }
}
