// The readiness verdict: `not_ready` when a check fails (the service cannot do its job:
// no database, unapplied migrations, a table that does not match its declaration, a full
// disk that refuses every write), `degraded` when a check warns (it works, but something
// needs an operator: a growing backlog, dead letters, a missing worker, open incidents,
// clamped settings, an unavailable provider), otherwise `ready`.
import type { Services } from './services.js'
import type { Database } from '../store/database.js'
import { pendingMigrations } from '../store/migrations/index.js'
import { schemaPlan } from '../store/schema-reconcile.js'
import { differencesOf } from '../store/schema-plan.js'
import type { IncidentMonitor } from '../ops/incident-monitor.js'
import { readWebhookState, type WebhookState } from '../webhooks/webhook-state.js'
import { pointsAtSink } from '../kernel/sink-path.js'
import { pingDatabase } from '../store/ping.js'
import { round2 } from '../kernel/numbers.js'

export type CheckStatus = 'ok' | 'warn' | 'fail'
export type Verdict = 'ready' | 'degraded' | 'not_ready'

export interface ReadinessCheck {
  readonly name: string
  readonly status: CheckStatus
  readonly message: string
  readonly details?: Readonly<Record<string, unknown>>
}

export interface Readiness {
  readonly verdict: Verdict
  readonly checkedAt: string
  readonly checks: readonly ReadinessCheck[]
}

/** Thresholds of the readiness checks (docs/operations.md lists them). */
export const READINESS_LIMITS = Object.freeze({
  backlogOldestSeconds: 300,
  backlogSize: 1000,
  heartbeatSeconds: 30,
  minSecretLength: 16,
  /** Longest the database checks may take before the database counts as unreachable. */
  databaseCheckMs: 2000,
})

class CheckTimeout extends Error {}

/** `work`, or a CheckTimeout after `ms`: readiness answers in bounded time even when the database does not. */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new CheckTimeout()), ms) })
  work.catch(() => {}) // a late failure after the deadline is not unhandled
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer))
}

const check = (name: string, status: CheckStatus, message: string, details?: Record<string, unknown>): ReadinessCheck =>
  ({ name, status, message, ...(details ? { details } : {}) })

export function verdictOf(checks: readonly ReadinessCheck[]): Verdict {
  if (checks.some((c) => c.status === 'fail')) return 'not_ready'
  if (checks.some((c) => c.status === 'warn')) return 'degraded'
  return 'ready'
}

/**
 * A round trip and the unapplied migrations, each within the deadline; rejects (a CheckTimeout
 * or the driver's error) when the database does not answer. Readiness and /readyz both ask it.
 */
async function probeDatabase(database: Database): Promise<{ roundTripMs: number; pending: string[] }> {
  const started = performance.now()
  await withDeadline(pingDatabase(database.db), READINESS_LIMITS.databaseCheckMs)
  const roundTripMs = round2(performance.now() - started)
  const pending = await withDeadline(pendingMigrations(database), READINESS_LIMITS.databaseCheckMs)
  return { roundTripMs, pending }
}

/** The load balancer's question (/readyz): is the database reachable and migrated? Never rejects. */
export const databaseReady = (database: Database): Promise<boolean> =>
  probeDatabase(database).then((p) => p.pending.length === 0, () => false)

async function databaseChecks(services: Services): Promise<ReadinessCheck[]> {
  try {
    const { roundTripMs, pending } = await probeDatabase(services.database)
    return [
      check('database', 'ok', `${services.database.adapter.name} reachable`, { dialect: services.database.adapter.name, roundTripMs }),
      pending.length === 0
        ? check('migrations', 'ok', 'all migrations applied')
        : check('migrations', 'fail', `${pending.length} migration${pending.length === 1 ? '' : 's'} not applied; run gatehouse migrate`, { pending }),
      pending.length === 0 ? await withDeadline(schemaCheck(services), READINESS_LIMITS.databaseCheckMs) : check('schema', 'fail', 'unknown until the migrations are applied'),
    ]
  } catch (err) {
    const problem = err instanceof CheckTimeout ? `the database did not answer within ${READINESS_LIMITS.databaseCheckMs} ms` : 'the database cannot be reached'
    return [
      check('database', 'fail', problem, { dialect: services.database.adapter.name }),
      check('migrations', 'fail', 'unknown while the database cannot be reached'),
      check('schema', 'fail', 'unknown while the database cannot be reached'),
    ]
  }
}

/** Each resource family's table against its declaration (what gatehouse migrate would do or refuse). */
async function schemaCheck(services: Services): Promise<ReadinessCheck> {
  const differences = differencesOf(await schemaPlan(services.database, services.resources.all))
  if (differences.length === 0) return check('schema', 'ok', 'every resource table matches its declaration')
  const status = differences.some((d) => d.severity === 'fail') ? 'fail' : 'warn'
  return check('schema', status, `${differences.length} difference${differences.length === 1 ? '' : 's'} between the resource declarations and the database (gatehouse migrate --dry-run lists them): ${differences[0].message}`, { differences })
}

/**
 * Whether this process's last write found the disk full. While it did, a one-row write is
 * tried first, so the check clears as soon as space is freed (store/storage-health.ts).
 */
export async function storageFullCheck(services: Services, now: number): Promise<ReadinessCheck> {
  const full = await withDeadline(services.storage.probe(now), READINESS_LIMITS.databaseCheckMs).catch(() => services.storage.full)
  if (!full) return check('storage', 'ok', 'writes succeed')
  return check('storage', 'fail', `the database's disk is full: writes answer 507 STORAGE_FULL until space is freed (reads still work)`,
    { since: new Date(full.since).toISOString(), code: full.code, cause: full.cause })
}

function rateLimitCheck(services: Services): ReadinessCheck {
  if (services.settings.rateLimitPerMinute === 0) return check('rateLimitStore', 'ok', 'rate limiting is off', { store: 'none' })
  const h = services.rateLimiter.health()
  if (h.degraded) return check('rateLimitStore', 'warn', `${h.problem ?? 'Redis unavailable'}; counting rate limits per process`, { store: 'memory', configured: h.store })
  return check('rateLimitStore', 'ok', h.store === 'redis' ? 'rate-limit counters shared in Redis' : 'rate-limit counters in process memory', { store: h.store })
}

function webhookSettingsCheck(services: Services): ReadinessCheck {
  const s = services.settings
  if (!s.webhookUrl && !s.webhookSecret) return check('webhookSettings', 'ok', 'webhook delivery is not configured', { configured: false })
  if (!s.webhookUrl || !s.webhookSecret) return check('webhookSettings', 'fail', 'webhook URL and secret must be set together', { configured: false })
  const details = { configured: true, timeoutSeconds: s.webhookTimeoutSeconds, maxAttempts: s.webhookMaxAttempts }
  if (pointsAtSink(s.webhookUrl)) {
    return check('webhookSettings', 'warn', 'deliveries go to the dev test sink; production receivers get nothing', details)
  }
  if (s.webhookSecret.length < READINESS_LIMITS.minSecretLength) {
    return check('webhookSettings', 'warn', `the webhook secret is shorter than ${READINESS_LIMITS.minSecretLength} characters`, details)
  }
  return check('webhookSettings', 'ok', 'URL and secret configured', details)
}

function webhookQueueChecks(services: Services, w: WebhookState): ReadinessCheck[] {
  const configured = Boolean(services.settings.webhookUrl && services.settings.webhookSecret)
  const oldest = w.oldestQueuedAgeSeconds === null ? null : Math.round(w.oldestQueuedAgeSeconds)
  const backlog = { queued: w.queued, oldestQueuedAgeSeconds: oldest }
  const out: ReadinessCheck[] = [
    oldest !== null && oldest >= READINESS_LIMITS.backlogOldestSeconds
      ? check('deliveryBacklog', 'warn', `the oldest queued delivery has waited ${oldest} s`, backlog)
      : w.queued >= READINESS_LIMITS.backlogSize
        ? check('deliveryBacklog', 'warn', `${w.queued} ${w.queued === 1 ? 'delivery is' : 'deliveries are'} queued`, backlog)
        : check('deliveryBacklog', 'ok', w.queued === 0 ? 'no deliveries waiting' : `${w.queued} queued`, backlog),
  ]
  const freshest = w.workers.reduce((m, x) => Math.min(m, x.heartbeatAgeSeconds), Number.POSITIVE_INFINITY)
  const workers = { workers: w.workers.length, freshestHeartbeatAgeSeconds: Number.isFinite(freshest) ? Math.round(freshest) : null }
  if (!configured) out.push(check('workerHeartbeat', 'ok', 'no worker needed: webhook delivery is not configured', workers))
  else if (freshest <= READINESS_LIMITS.heartbeatSeconds) out.push(check('workerHeartbeat', 'ok', 'a webhook worker reported recently', workers))
  else out.push(check('workerHeartbeat', 'warn', `no webhook worker reported in the last ${READINESS_LIMITS.heartbeatSeconds} s`, workers))
  out.push(w.dlqSize > 0
    ? check('deadLetters', 'warn', `${w.dlqSize} dead-lettered ${w.dlqSize === 1 ? 'delivery waits' : 'deliveries wait'} for replay`, { dlqSize: w.dlqSize })
    : check('deadLetters', 'ok', 'the dead-letter queue is empty', { dlqSize: 0 }))
  return out
}

function providersCheck(services: Services): ReadinessCheck {
  const providers = services.providers.statuses()
  const down = providers.filter((p) => !p.available)
  return down.length > 0
    ? check('providers', 'warn', down.map((p) => `provider ${p.plugin} is unavailable: ${p.message ?? 'no reason given'}`).join('; '), { providers })
    : check('providers', 'ok', `${providers.length} provider${providers.length === 1 ? '' : 's'} available`, { providers })
}

async function workflowsCheck(services: Services): Promise<ReadinessCheck> {
  const { count, sample } = await services.jobs.overdue(20)
  const graceSeconds = services.jobs.overdueGraceMs / 1000
  // Named, so the warning says which workers to look at (the first three; the details list up to 20).
  const named = sample.slice(0, 3).map((w) => w.name).join(', ') + (count > 3 ? ` and ${count - 3} more` : '')
  return count > 0
    ? check('workflows', 'warn', `${count} workflow${count === 1 ? '' : 's'} overdue (due for more than ${graceSeconds} s with no run started): ${named}`, { overdue: count, graceSeconds, workflows: sample })
    : check('workflows', 'ok', 'no workflow is overdue', { overdue: 0, graceSeconds })
}

export async function checkReadiness(services: Services, monitor: IncidentMonitor | undefined, now = Date.now()): Promise<Readiness> {
  const checks = await databaseChecks(services)
  const dbUp = checks[0].status === 'ok'
  if (dbUp) checks.push(await storageFullCheck(services, now))

  const limit = READINESS_LIMITS.databaseCheckMs
  const count = dbUp ? await withDeadline(services.credentials.runtimeCredentialCount(), limit).catch(() => 0) : 0
  checks.push(count > 0
    ? check('credentials', 'ok', `${count} credential${count === 1 ? '' : 's'} accepted`, { count })
    : check('credentials', dbUp ? 'warn' : 'fail', 'no credential is configured; machine clients cannot authenticate', { count }))

  checks.push(rateLimitCheck(services))
  checks.push(webhookSettingsCheck(services))
  const webhookState = dbUp ? await withDeadline(readWebhookState(services.database, services.settings.incidentWindowSeconds * 1000, now), limit).catch(() => undefined) : undefined
  if (webhookState) checks.push(...webhookQueueChecks(services, webhookState))

  if (dbUp) checks.push(await workflowsCheck(services))

  const warnings = services.settings.warnings
  checks.push(warnings.length > 0
    ? check('settings', 'warn', `${warnings.length} setting${warnings.length === 1 ? '' : 's'} clamped or ignored`, { warnings })
    : check('settings', 'ok', 'all settings applied as given'))

  // Only when providers are configured: a deployment without any has nothing to check.
  if (services.settings.providers.length > 0) checks.push(providersCheck(services))

  if (dbUp && monitor) {
    const open = await withDeadline(monitor.evaluate(now).then(() => monitor.list({ limit: 200 })), limit)
      .then((all) => all.filter((i) => i.status === 'open')).catch(() => undefined)
    if (open) {
      checks.push(open.length > 0
        ? check('incidents', 'warn', `${open.length} open incident${open.length === 1 ? '' : 's'}`, { open: open.map((i) => ({ id: i.id, category: i.category, severity: i.currentSeverity })) })
        : check('incidents', 'ok', 'no open incidents'))
    }
  }
  return { verdict: verdictOf(checks), checkedAt: new Date(now).toISOString(), checks }
}
