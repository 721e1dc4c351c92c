// The readiness verdict: `not_ready` when a check fails (the service cannot do its job:
// no database, unapplied migrations, a table that does not match its declaration), `degraded` when a check warns (it works, but something
// needs an operator: a growing backlog, dead letters, a missing worker, open incidents,
// clamped settings), otherwise `ready`.
import { sql } from 'kysely'
import type { Services } from '../services.js'
import { pendingMigrations } from '../store/migrations/index.js'
import { schemaPlan } from '../store/schema-reconcile.js'
import { differencesOf } from '../store/schema-plan.js'
import type { IncidentMonitor } from './incident-monitor.js'
import { readWebhookState, type WebhookState } from '../webhooks/webhook-state.js'

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
})

const check = (name: string, status: CheckStatus, message: string, details?: Record<string, unknown>): ReadinessCheck =>
  ({ name, status, message, ...(details ? { details } : {}) })

export function verdictOf(checks: readonly ReadinessCheck[]): Verdict {
  if (checks.some((c) => c.status === 'fail')) return 'not_ready'
  if (checks.some((c) => c.status === 'warn')) return 'degraded'
  return 'ready'
}

async function databaseChecks(services: Services): Promise<ReadinessCheck[]> {
  try {
    const started = performance.now()
    await sql`SELECT 1`.execute(services.database.db)
    const ms = Math.round((performance.now() - started) * 100) / 100
    const pending = await pendingMigrations(services.database)
    return [
      check('database', 'ok', `${services.database.adapter.name} reachable`, { dialect: services.database.adapter.name, roundTripMs: ms }),
      pending.length === 0
        ? check('migrations', 'ok', 'all migrations applied')
        : check('migrations', 'fail', `${pending.length} migration${pending.length === 1 ? '' : 's'} not applied; run gatehouse migrate`, { pending }),
      pending.length === 0 ? await schemaCheck(services) : check('schema', 'fail', 'unknown until the migrations are applied'),
    ]
  } catch {
    return [
      check('database', 'fail', 'the database cannot be reached', { dialect: services.database.adapter.name }),
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
  return check('schema', status, `${differences.length} difference(s) between the resource declarations and the database (gatehouse migrate --dry-run lists them): ${differences[0].message}`, { differences })
}

function webhookSettingsCheck(services: Services): ReadinessCheck {
  const s = services.settings
  if (!s.webhookUrl && !s.webhookSecret) return check('webhookSettings', 'ok', 'webhook delivery is not configured', { configured: false })
  if (!s.webhookUrl || !s.webhookSecret) return check('webhookSettings', 'fail', 'webhook URL and secret must be set together', { configured: false })
  const details = { configured: true, timeoutSeconds: s.webhookTimeoutSeconds, maxAttempts: s.webhookMaxAttempts }
  if (s.webhookUrl.includes('/gatehouse/dev/webhook-test-sink')) {
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

export async function checkReadiness(services: Services, monitor: IncidentMonitor | undefined, now = Date.now()): Promise<Readiness> {
  const checks = await databaseChecks(services)
  const dbUp = checks[0].status === 'ok'

  const count = dbUp ? await services.credentials.runtimeCredentialCount() : 0
  checks.push(count > 0
    ? check('credentials', 'ok', `${count} credential${count === 1 ? '' : 's'} accepted`, { count })
    : check('credentials', dbUp ? 'warn' : 'fail', 'no credential is configured; machine clients cannot authenticate', { count }))

  checks.push(webhookSettingsCheck(services))
  if (dbUp) checks.push(...webhookQueueChecks(services, await readWebhookState(services.database.db, services.settings.incidentWindowSeconds * 1000, now)))

  const warnings = services.settings.warnings
  checks.push(warnings.length > 0
    ? check('settings', 'warn', `${warnings.length} setting${warnings.length === 1 ? '' : 's'} clamped or ignored`, { warnings })
    : check('settings', 'ok', 'all settings applied as given'))

  if (dbUp && monitor) {
    await monitor.evaluate(now)
    const open = (await monitor.list({ limit: 200 })).filter((i) => i.status === 'open')
    checks.push(open.length > 0
      ? check('incidents', 'warn', `${open.length} open incident${open.length === 1 ? '' : 's'}`, { open: open.map((i) => ({ id: i.id, category: i.category, severity: i.currentSeverity })) })
      : check('incidents', 'ok', 'no open incidents'))
  }
  return { verdict: verdictOf(checks), checkedAt: new Date(now).toISOString(), checks }
}
