// The operations state of one process: request metrics, the signal recorder and the
// incident monitor, plus the two callbacks the machine API reports through. Built once in
// buildApp; the CLI builds one without timers to read the same shared state.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Services } from '../services.js'
import { MetricsRegistry, type DenialKind } from './metrics-registry.js'
import { SignalRecorder, type SignalName } from './signal-recorder.js'
import { IncidentMonitor } from './incident-monitor.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route key metrics count a route under that is not a machine route (the MCP endpoint). */
    metricsKey?: string
  }
}

const DENIAL_SIGNAL: Record<DenialKind, SignalName> = { auth: 'auth_failures', scope: 'scope_denials', rate: 'rate_limited' }

export class Operations {
  readonly metrics = new MetricsRegistry()
  readonly recorder: SignalRecorder
  readonly monitor: IncidentMonitor

  constructor(readonly services: Services) {
    this.recorder = new SignalRecorder(services.database.db, services.settings.incidentWindowSeconds * 1000)
    this.monitor = new IncidentMonitor(services.database, services.settings, this.recorder, async () => (await services.jobs.overdue(0)).count)
    // Requests limited in memory because Redis is unavailable feed the rate_limit_store incident.
    services.rateLimiter.onFallback = () => this.recorder.record('rate_limit_fallbacks')
  }

  /** MachineApiOptions.onAnswered: every answered machine request, denied ones included. */
  readonly onAnswered = (request: FastifyRequest, reply: FastifyReply, elapsedMs: number): void => {
    const config = request.routeOptions.config
    const route = config.machineRoute?.key ?? config.metricsKey ?? 'unknown'
    this.metrics.observeRequest(route, request.method, reply.statusCode, elapsedMs)
    this.recorder.record('requests')
    if (reply.statusCode >= 500) this.recorder.record('server_errors')
  }

  /** MachineApiOptions.onDenied: authentication, scope and rate-limit refusals. */
  readonly onDenied = (kind: DenialKind): void => {
    this.metrics.deny(kind)
    this.recorder.record(DENIAL_SIGNAL[kind])
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
  }
}
