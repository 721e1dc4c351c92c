// The webhook probe: a synthetic signed delivery through the live URL and secret, sent
// now (not through the queue), so an operator can see that the URL is reachable, the
// secret matches and outbound delivery works. It proves nothing about change hooks, the
// queue or the receiver's own logic. A five-minute cooldown, kept in the database so it
// holds across processes, prevents repeated probes; every probe lands in the ledger.
import { randomUUID } from 'node:crypto'
import type { Database, Db } from '../store/database.js'
import type { Settings } from '../kernel/settings.js'
import { ApiError } from '../kernel/errors.js'
import { deliveryHeaders } from './signer.js'
import { sendAttempt } from './transport.js'

export const PROBE_COOLDOWN_MS = 5 * 60 * 1000
const LEDGER_RETENTION_MS = 90 * 86_400_000

export interface ProbePayload {
  readonly id: string
  readonly eventKind: 'probe'
  readonly isProbe: true
  readonly probeId: string
  readonly triggeredAt: string
  readonly triggeredBy: string
}

export interface ProbeAttempt {
  readonly probeId: string
  readonly triggeredAt: string
  readonly triggeredBy: string
  readonly status: 'delivered' | 'failed'
  readonly statusCode: number | null
  readonly error: string | null
  readonly durationMs: number
  readonly targetHost: string
  readonly payload: ProbePayload
}

export interface ProbeLedger {
  readonly cooldownSeconds: number
  /** When the next probe may run; null when it may run now. */
  readonly nextProbeAt: string | null
  readonly delivered: number
  readonly failed: number
  readonly lastSuccessAt: string | null
  readonly lastFailureAt: string | null
  readonly recent: readonly ProbeAttempt[]
}

/** Scheme, host and port of the URL: enough to tell where it went, nothing it may carry. */
export const targetHost = (url: string) => {
  const u = new URL(url)
  return `${u.protocol}//${u.host}`
}

export function notConfigured(): ApiError {
  return new ApiError('CONFLICT', 'Webhook delivery is not configured: set PLUGIN_GATEHOUSE_WEBHOOK_URL and PLUGIN_GATEHOUSE_WEBHOOK_SECRET')
}

/** Takes the cooldown if it has run out (one conditional UPDATE: atomic across processes). */
async function takeCooldown(database: Database, now: number): Promise<void> {
  const res = await database.db.updateTable('webhook_probe_cooldown').set({ last_probe_at: now })
    .where('id', '=', 1).where('last_probe_at', '<=', now - PROBE_COOLDOWN_MS).executeTakeFirst()
  if (Number(res.numUpdatedRows) === 1) return
  const row = await database.db.selectFrom('webhook_probe_cooldown').select('last_probe_at').where('id', '=', 1).executeTakeFirst()
  const wait = Math.max(1, Math.ceil((Number(row?.last_probe_at ?? now) + PROBE_COOLDOWN_MS - now) / 1000))
  throw new ApiError('RATE_LIMIT_EXCEEDED', `A probe ran less than five minutes ago; try again in ${wait} seconds`, undefined, { 'Retry-After': String(wait) })
}

/**
 * Sends one probe and records it in the ledger; `record` runs in the ledger write's
 * transaction (the audit hook), so the ledger and the audit log agree.
 */
export async function runProbe(database: Database, settings: Settings, triggeredBy: string, now = Date.now(),
  record?: (tx: Db, attempt: ProbeAttempt) => Promise<void>): Promise<ProbeAttempt> {
  const url = settings.webhookUrl
  const secret = settings.webhookSecret
  if (!url || !secret) throw notConfigured()
  await takeCooldown(database, now)

  const hex = randomUUID().replace(/-/g, '')
  const probeId = `probe_${hex}`
  const payload: ProbePayload = { id: probeId, eventKind: 'probe', isProbe: true, probeId, triggeredAt: new Date(now).toISOString(), triggeredBy }
  const body = JSON.stringify(payload)
  const result = await sendAttempt(url, body, deliveryHeaders(secret, `whp_${hex}`, Math.floor(now / 1000), body, 1), settings.webhookTimeoutSeconds * 1000)
  const attempt: ProbeAttempt = {
    probeId, triggeredAt: payload.triggeredAt, triggeredBy, status: result.ok ? 'delivered' : 'failed',
    statusCode: result.statusCode, error: result.error, durationMs: result.durationMs, targetHost: targetHost(url), payload,
  }
  await database.db.transaction().execute(async (tx) => {
    await tx.insertInto('webhook_probes').values({
      probe_id: probeId, triggered_at: now, triggered_by: triggeredBy, status: attempt.status, status_code: result.statusCode,
      error: result.error, duration_ms: result.durationMs, target_host: attempt.targetHost, payload: body,
    }).execute()
    await tx.deleteFrom('webhook_probes').where('triggered_at', '<', now - LEDGER_RETENTION_MS).execute()
    await record?.(tx, attempt)
  })
  return attempt
}

const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString())

export async function probeLedger(database: Database, limit = 20, now = Date.now()): Promise<ProbeLedger> {
  const { db } = database
  const rows = await db.selectFrom('webhook_probes').selectAll().orderBy('id', 'desc').limit(limit).execute()
  const counts = await db.selectFrom('webhook_probes').select(['status', (eb) => eb.fn.countAll().as('n'), (eb) => eb.fn.max('triggered_at').as('last')])
    .groupBy('status').execute()
  const of = (status: string) => counts.find((c) => c.status === status)
  const cooldown = await db.selectFrom('webhook_probe_cooldown').select('last_probe_at').where('id', '=', 1).executeTakeFirst()
  const nextAt = Number(cooldown?.last_probe_at ?? 0) + PROBE_COOLDOWN_MS
  return {
    cooldownSeconds: PROBE_COOLDOWN_MS / 1000,
    nextProbeAt: nextAt > now ? new Date(nextAt).toISOString() : null,
    delivered: Number(of('delivered')?.n ?? 0),
    failed: Number(of('failed')?.n ?? 0),
    lastSuccessAt: iso(of('delivered')?.last),
    lastFailureAt: iso(of('failed')?.last),
    recent: rows.map((r) => ({
      probeId: r.probe_id as string, triggeredAt: iso(r.triggered_at) as string, triggeredBy: r.triggered_by as string,
      status: r.status as 'delivered' | 'failed', statusCode: r.status_code === null ? null : Number(r.status_code),
      error: (r.error as string | null) ?? null, durationMs: Number(r.duration_ms), targetHost: r.target_host as string,
      payload: JSON.parse(r.payload as string) as ProbePayload,
    })),
  }
}
