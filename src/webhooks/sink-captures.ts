// What the dev test sink keeps: the last captures (headers that matter, a body preview,
// whether each signature verified) and running counts. Kept in the database so every
// process of a dev site shows the same view. Routing mode and matched credentials come
// from the delivery row the capture names, never from headers the receiver would see.
import type { Database } from '../store/database.js'
import type { Settings } from '../kernel/settings.js'
import { verifyDelivery } from './signer.js'
import { routingModeOf } from './targeting.js'
import { credentialLabels, loadInterestHolders } from '../auth/credential-interests.js'
import { sinkUrl } from './sink-url.js'

const KEEP = 50
const PREVIEW_CHARS = 4096
const KEPT_HEADERS = ['content-type', 'user-agent', 'x-gatehouse-webhook-id', 'x-gatehouse-webhook-timestamp', 'x-gatehouse-webhook-signature',
  'x-gatehouse-webhook-attempt', 'webhook-id', 'webhook-timestamp', 'webhook-signature']

export interface SinkCapture {
  readonly id: number
  readonly receivedAt: string
  readonly deliveryId: string | null
  readonly eventId: string | null
  readonly kind: string | null
  readonly signatureValid: boolean
  readonly standardSignatureValid: boolean
  readonly problem: string | null
  readonly routingMode: string | null
  readonly matchedCredentials: readonly string[]
  readonly headers: Readonly<Record<string, string>>
  readonly bodyBytes: number
  readonly payloadPreview: string
}

export interface SinkView {
  readonly url: string
  readonly capturedCount: number
  readonly validCount: number
  readonly lastCapturedAt: string | null
  /** Routing mode and matched credentials of the latest capture. */
  readonly routingMode: string | null
  readonly matchedCredentials: readonly { readonly id: string; readonly label: string | null }[]
  /** What a change written now would be routed as. */
  readonly currentRoutingMode: string
  readonly captures: readonly SinkCapture[]
}

type Headers = Readonly<Record<string, string | string[] | undefined>>
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)

/** Records one received request; returns whether its signatures verified. */
export async function recordCapture(database: Database, settings: Settings, headers: Headers, body: string, now = Date.now()): Promise<boolean> {
  const secret = settings.webhookSecret
  const check = secret ? verifyDelivery(secret, headers, body, now) : undefined
  const problem = !check ? 'no webhook secret configured'
    : !check.gatehouse ? 'X-Gatehouse-Webhook-Signature does not match'
      : !check.standard ? 'webhook-signature does not match'
        : !check.fresh ? 'timestamp outside the five-minute tolerance' : null
  const valid = problem === null
  const deliveryId = first(headers['x-gatehouse-webhook-id']) ?? null
  let parsed: Record<string, unknown> | undefined
  try {
    const p = JSON.parse(body) as unknown
    if (typeof p === 'object' && p !== null) parsed = p as Record<string, unknown>
  } catch { /* kept as text */ }
  const { db, adapter } = database
  const row = deliveryId
    ? await db.selectFrom('webhook_deliveries').select(['kind', 'routing_mode', 'matched_credentials']).where('delivery_id', '=', deliveryId).executeTakeFirst()
    : undefined
  const kind = row ? (row.kind as string) : parsed?.isProbe === true ? 'probe' : null
  const kept = Object.fromEntries(KEPT_HEADERS.filter((h) => first(headers[h]) !== undefined).map((h) => [h, first(headers[h]) as string]))
  await db.transaction().execute(async (tx) => {
    await tx.insertInto('webhook_sink_captures').values({
      received_at: now, delivery_id: deliveryId, event_id: typeof parsed?.id === 'string' ? parsed.id : null, kind,
      signature_valid: adapter.bool(check?.gatehouse ?? false), standard_signature_valid: adapter.bool(check?.standard ?? false), problem,
      routing_mode: row ? (row.routing_mode as string) : kind, matched_credentials: row ? (row.matched_credentials as string) : '[]',
      headers: JSON.stringify(kept), body_preview: body.slice(0, PREVIEW_CHARS), body_bytes: Buffer.byteLength(body),
    }).execute()
    await tx.updateTable('webhook_sink_stats').set((eb) => ({
      captured: eb('captured', '+', 1), valid: eb('valid', '+', valid ? 1 : 0), last_captured_at: now,
    })).where('id', '=', 1).execute()
    const keepFrom = await tx.selectFrom('webhook_sink_captures').select('id').orderBy('id', 'desc').offset(KEEP - 1).limit(1).executeTakeFirst()
    if (keepFrom) await tx.deleteFrom('webhook_sink_captures').where('id', '<', keepFrom.id).execute()
  })
  return valid
}

const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString())

export async function sinkView(database: Database, settings: Settings, limit = 20): Promise<SinkView> {
  const { db } = database
  const stats = await db.selectFrom('webhook_sink_stats').selectAll().where('id', '=', 1).executeTakeFirst()
  const rows = await db.selectFrom('webhook_sink_captures').selectAll().orderBy('id', 'desc').limit(limit).execute()
  const captures: SinkCapture[] = rows.map((r) => ({
    id: Number(r.id), receivedAt: iso(r.received_at) as string, deliveryId: (r.delivery_id as string | null) ?? null,
    eventId: (r.event_id as string | null) ?? null, kind: (r.kind as string | null) ?? null,
    signatureValid: Boolean(r.signature_valid), standardSignatureValid: Boolean(r.standard_signature_valid), problem: (r.problem as string | null) ?? null,
    routingMode: (r.routing_mode as string | null) ?? null, matchedCredentials: JSON.parse((r.matched_credentials as string | null) ?? '[]') as string[],
    headers: JSON.parse(r.headers as string) as Record<string, string>, bodyBytes: Number(r.body_bytes), payloadPreview: r.body_preview as string,
  }))
  const latest = captures[0]
  const ids = latest ? [...latest.matchedCredentials] : []
  const labels = await credentialLabels(db, ids)
  return {
    url: sinkUrl(settings),
    capturedCount: Number(stats?.captured ?? 0),
    validCount: Number(stats?.valid ?? 0),
    lastCapturedAt: iso(stats?.last_captured_at),
    routingMode: latest?.routingMode ?? null,
    matchedCredentials: ids.map((id) => ({ id, label: labels.get(id) ?? null })),
    currentRoutingMode: routingModeOf(await loadInterestHolders(db)),
    captures,
  }
}

export async function clearSink(database: Database): Promise<void> {
  await database.db.transaction().execute(async (tx) => {
    await tx.deleteFrom('webhook_sink_captures').execute()
    await tx.updateTable('webhook_sink_stats').set({ captured: 0, valid: 0, last_captured_at: null }).where('id', '=', 1).execute()
  })
}
