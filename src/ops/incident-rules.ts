// The incident rules: which reliability signal each category watches, the thresholds for
// warn and critical, and what an operator should do. Data, so docs/operations.md and the
// /incidents answers say the same thing. Counts are per sliding window (not lifetime), and
// the rate-based rules need both a minimum count and a minimum rate, so a single failed
// request on a quiet site does not page anyone.
import type { WebhookState } from '../webhooks/webhook-state.js'
import type { SignalName } from './signal-recorder.js'

export type Severity = 'warn' | 'critical'

export interface Threshold {
  /** Events in the window at or above which the level applies. */
  readonly count?: number
  /** Share of the window's requests or attempts at or above which the level applies. */
  readonly rate?: number
  /** Age in seconds at or above which the level applies. */
  readonly seconds?: number
}

export interface SignalSnapshot {
  readonly windowSeconds: number
  readonly sums: Readonly<Record<SignalName, number>>
  readonly webhooksConfigured: boolean
  readonly webhook: WebhookState
  /** Active workflows due for longer than the grace period without a run (the job runtime). */
  readonly workflowsOverdue: number
  /** Seconds since this process saw the database's disk full; null while writes succeed. */
  readonly storageFullSeconds: number | null
}

export interface Measurement {
  readonly value: number
  readonly rate?: number
}

export interface IncidentRule {
  readonly category: string
  readonly signal: string
  readonly summary: string
  readonly thresholds: Readonly<Partial<Record<Severity, Threshold>>>
  readonly recommendedAction: string
  /** The measurement, or null when the rule does not apply now. */
  measure(s: SignalSnapshot): Measurement | null
}

const ratio = (part: number, whole: number) => (whole <= 0 ? 0 : part / whole)

/** Requests the window saw, counting auth failures on unknown paths too. */
const attempts = (s: SignalSnapshot) => Math.max(s.sums.requests, s.sums.auth_failures + s.sums.auth_missing)

export const incidentRules: readonly IncidentRule[] = [
  {
    category: 'auth_failures',
    signal: 'auth_failures_in_window',
    summary: 'Many requests present a token that fails authentication (unknown, expired, revoked or paused, or an address outside an allowlist); requests without a token count under auth_missing',
    thresholds: { warn: { count: 10, rate: 0.1 }, critical: { count: 50, rate: 0.5 } },
    recommendedAction: 'Check /lifecycle for expired, revoked or paused credentials a client still uses; if the failures come from an unknown client, treat it as token guessing: keep rate limiting on and restrict credentials with IP allowlists.',
    measure: (s) => ({ value: s.sums.auth_failures, rate: ratio(s.sums.auth_failures, attempts(s)) }),
  },
  {
    // At most a warning: no token at all is a client that was never given one (a start-up or
    // health poller), not someone guessing tokens.
    category: 'auth_missing',
    signal: 'auth_missing_in_window',
    summary: 'Many requests come without any token',
    thresholds: { warn: { count: 50, rate: 0.5 } },
    recommendedAction: 'A client calls the API without a token: point start-up and load-balancer checks at /livez and /readyz (no token needed), and give other clients a credential.',
    measure: (s) => ({ value: s.sums.auth_missing, rate: ratio(s.sums.auth_missing, attempts(s)) }),
  },
  {
    category: 'server_errors',
    signal: 'server_errors_in_window',
    summary: 'Requests end in 5xx answers',
    thresholds: { warn: { count: 5, rate: 0.05 }, critical: { count: 20, rate: 0.25 } },
    recommendedAction: 'Check /readiness (database reachable and migrated; providers available) and the server log for the requestIds of the failing requests; a 503 SERVICE_UNAVAILABLE means the database cannot be reached, a 503 PROVIDER_UNAVAILABLE that an external provider is down.',
    measure: (s) => ({ value: s.sums.server_errors, rate: ratio(s.sums.server_errors, s.sums.requests) }),
  },
  {
    category: 'scope_denials',
    signal: 'scope_denials_in_window',
    summary: 'Clients call endpoints their credentials lack the scope for',
    thresholds: { warn: { count: 20, rate: 0.2 } },
    recommendedAction: 'A client is configured for more than it was granted: compare its calls with its scopes (GET /auth/whoami) and either grant the missing scope deliberately or fix the client.',
    measure: (s) => ({ value: s.sums.scope_denials, rate: ratio(s.sums.scope_denials, s.sums.requests) }),
  },
  {
    category: 'rate_limiting',
    signal: 'rate_limit_denials_in_window',
    summary: 'Requests are turned away by the per-credential rate limit',
    thresholds: { warn: { count: 20, rate: 0.1 } },
    recommendedAction: 'A client exceeds PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: make it honour Retry-After and use /changes with checkpoints instead of full re-reads, or raise the limit if the load is expected.',
    measure: (s) => ({ value: s.sums.rate_limited, rate: ratio(s.sums.rate_limited, attempts(s)) }),
  },
  {
    category: 'rate_limit_store',
    signal: 'rate_limit_fallbacks_in_window',
    summary: 'Redis (PLUGIN_GATEHOUSE_REDIS_URL) cannot be reached: rate limits are counted per process, so each API process allows the full budget',
    thresholds: { warn: { count: 1 } },
    recommendedAction: 'Check that Redis runs and is reachable from every API process (readiness check rateLimitStore says why it is not); limits return to shared counters by themselves once it answers again.',
    measure: (s) => ({ value: s.sums.rate_limit_fallbacks }),
  },
  {
    category: 'webhook_failures',
    signal: 'webhook_failed_attempts_in_window',
    summary: 'Webhook delivery attempts fail (non-2xx answers, timeouts or connection errors)',
    thresholds: { warn: { count: 3, rate: 0.2 }, critical: { count: 10, rate: 0.5 } },
    recommendedAction: 'Run the webhook probe from the control panel to check the receiver URL and secret; check the receiver\'s logs and availability. Failed deliveries are retried, then kept in the DLQ for replay.',
    measure: (s) => {
      const w = s.webhook.window
      if (!s.webhook.available) return null
      return { value: w.failedAttempts, rate: ratio(w.failedAttempts, w.failedAttempts + w.delivered) }
    },
  },
  {
    category: 'dlq_growth',
    signal: 'dead_letters_in_window',
    summary: 'Deliveries exhaust their attempts and enter the dead-letter queue',
    thresholds: { warn: { count: 1 }, critical: { count: 10 } },
    recommendedAction: 'Fix the receiver first (see webhook_failures), then replay: POST /webhooks/dlq/replay with mode=all, or `gatehouse webhooks dlq replay --all`.',
    measure: (s) => (s.webhook.available ? { value: s.webhook.window.deadLettered } : null),
  },
  {
    category: 'delivery_backlog',
    signal: 'oldest_queued_delivery_age_seconds',
    summary: 'Webhook deliveries wait in the queue for long',
    thresholds: { warn: { seconds: 300 }, critical: { seconds: 1800 } },
    recommendedAction: 'Check that a webhook worker runs (readiness check workerHeartbeat) and that the receiver answers quickly; add `gatehouse worker` processes if the queue only grows.',
    measure: (s) => (s.webhook.available ? { value: Math.round(s.webhook.oldestQueuedAgeSeconds ?? 0) } : null),
  },
  {
    category: 'worker_stalled',
    signal: 'seconds_since_worker_heartbeat',
    summary: 'Deliveries are queued but no webhook worker has reported recently',
    thresholds: { critical: { seconds: 60 } },
    recommendedAction: 'Start `gatehouse serve` (it runs a worker) or `gatehouse worker`; if one runs, check its log for database errors.',
    measure: (s) => {
      if (!s.webhook.available || !s.webhooksConfigured || s.webhook.queued === 0) return null
      const freshest = s.webhook.workers.reduce((m, w) => Math.min(m, w.heartbeatAgeSeconds), Number.POSITIVE_INFINITY)
      // No heartbeat at all counts as stalled for as long as the oldest delivery waited.
      return { value: Math.round(Number.isFinite(freshest) ? freshest : (s.webhook.oldestQueuedAgeSeconds ?? 0)) }
    },
  },
  {
    category: 'jobs',
    signal: 'workflows_overdue',
    summary: 'Scheduled workflows are due and no worker has started them within the grace period',
    thresholds: { warn: { count: 1 }, critical: { count: 10 } },
    recommendedAction: 'Check that the workers of these workflows run and can reach the API with their credential (GET /workflows?dueOnly=true as that credential); a paused or revoked credential cannot report. The control panel\'s Jobs screen lists which workflows are overdue.',
    measure: (s) => ({ value: s.workflowsOverdue }),
  },
  {
    // Not a window count: the state holds until a write succeeds (store/storage-health.ts).
    category: 'storage_full',
    signal: 'seconds_storage_full',
    summary: 'The database\'s disk is full: writes answer 507 STORAGE_FULL (reads still work)',
    thresholds: { critical: { seconds: 0 } },
    recommendedAction: 'Free space on the database\'s disk (SQLite: the file system holding the database file and its -wal file; PostgreSQL: the server\'s data directory), or move the database to a larger volume; shorten PLUGIN_GATEHOUSE_CHANGES_RETENTION_DAYS if the change log is what grew. Writes resume, and this incident resolves, as soon as one succeeds.',
    measure: (s) => (s.storageFullSeconds === null ? null : { value: s.storageFullSeconds }),
  },
]

function meets(m: Measurement, t: Threshold | undefined): boolean {
  if (!t) return false
  if (t.count !== undefined && m.value < t.count) return false
  if (t.seconds !== undefined && m.value < t.seconds) return false
  if (t.rate !== undefined && (m.rate ?? 0) < t.rate) return false
  return true
}

/** The level a measurement reaches, or null below every threshold. */
export function severityOf(rule: IncidentRule, m: Measurement | null): Severity | null {
  if (!m) return null
  if (meets(m, rule.thresholds.critical)) return 'critical'
  if (meets(m, rule.thresholds.warn)) return 'warn'
  return null
}
