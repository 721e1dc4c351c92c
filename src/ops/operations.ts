// The operations state of one process: request metrics, the signal recorder and the
// incident monitor, plus the two callbacks the machine API reports through. Built once in
// buildApp; the CLI builds one without timers to read the same shared state.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Database } from '../store/database.js'
import type { Settings } from '../kernel/settings.js'
import type { RateLimiter } from '../auth/rate-limit.js'
import type { MetricBuckets } from './metric-buckets.js'
import { MetricsRegistry, type DenialKind } from './metrics-registry.js'
import { SignalRecorder, type SignalName } from './signal-recorder.js'
import { IncidentMonitor } from './incident-monitor.js'
import type { Caller } from '../kernel/caller.js'
import type { Counter } from './metric-buckets.js'
import type { StorageHealth } from '../store/storage-health.js'

const DENIAL_SIGNAL: Record<DenialKind, SignalName> = { auth: 'auth_failures', scope: 'scope_denials', rate: 'rate_limited' }
const DENIAL_COUNTER: Record<DenialKind, Counter> = { auth: 'auth_failures', scope: 'scope_denials', rate: 'rate_limited' }

/** What the operations state reads and counts through; the composition root passes its services. */
export interface OperationsDeps {
  readonly database: Database
  readonly settings: Settings
  readonly rateLimiter: RateLimiter
  readonly metricBuckets: MetricBuckets
  /** When this process started (ms), for uptime. */
  readonly startedAt: number
  /** How many workflows are overdue now (the job runtime's count). */
  readonly jobs: { overdue(graceMs: number): Promise<{ readonly count: number }> }
  /** The machine API's page cache: how many requests it answered and how many it computed. */
  readonly pageCache: { counts(): { readonly hits: number; readonly misses: number } }
  /** Whether the disk is full (the storage_full incident). */
  readonly storage?: StorageHealth
}

/** `S`: the services as the composition root built them, for the surfaces that read more of them. */
export class Operations<S extends OperationsDeps = OperationsDeps> {
  readonly metrics = new MetricsRegistry()
  readonly recorder: SignalRecorder
  readonly monitor: IncidentMonitor
  /** Rate-limited requests end before request.caller is set; their credential is kept here for onAnswered. */
  private readonly refused = new WeakMap<FastifyRequest, string>()

  constructor(readonly services: S) {
    this.recorder = new SignalRecorder(services.database.db, services.settings.incidentWindowSeconds * 1000)
    this.monitor = new IncidentMonitor(services.database, services.settings, this.recorder, async () => (await services.jobs.overdue(0)).count, services.storage)
    // Requests limited in memory because Redis is unavailable feed the rate_limit_store incident.
    services.rateLimiter.onFallback = () => this.recorder.record('rate_limit_fallbacks')
  }

  /** MachineApiOptions.onAnswered: every answered machine request, denied ones included. */
  readonly onAnswered = (request: FastifyRequest, reply: FastifyReply, elapsedMs: number, route: string): void => {
    this.metrics.observeRequest(route, request.method, reply.statusCode, elapsedMs)
    this.recorder.record('requests')
    if (reply.statusCode >= 500) this.recorder.record('server_errors')
    // The charts' counters: in memory here, added to the database every few seconds.
    this.services.metricBuckets.observeRequest(request.caller?.credentialId ?? this.refused.get(request) ?? '', reply.statusCode, elapsedMs)
  }

  /** MachineApiOptions.onDenied: authentication, scope and rate-limit refusals. */
  readonly onDenied = (kind: DenialKind, request?: FastifyRequest, caller?: Caller): void => {
    this.metrics.deny(kind)
    // A request without any token is not a failed authentication attempt: it feeds its own
    // signal, which can at most warn (incident-rules.ts), so a health poller never pages anyone.
    this.recorder.record(kind === 'auth' && request !== undefined && request.headers.authorization === undefined ? 'auth_missing' : DENIAL_SIGNAL[kind])
    this.services.metricBuckets.count(caller?.credentialId ?? '', DENIAL_COUNTER[kind])
    if (caller && request) this.refused.set(request, caller.credentialId)
  }

  /** One MCP tool call answered: `ok`, or the error code of its answer. */
  readonly onToolCall = (tool: string, outcome: string): void => {
    this.metrics.observeToolCall(tool, outcome)
  }

  start(): void {
    this.monitor.start()
  }

  async close(): Promise<void> {
    await this.monitor.stop()
    await this.recorder.close().catch(() => {})
    await this.services.metricBuckets.flush().catch(() => {})
  }
}
