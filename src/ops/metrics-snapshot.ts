// One snapshot of every metric: this process's request counters and histograms, and the
// shared state read from the database (queue, dead letters, workers, window signals,
// open incidents, pending approvals, overdue workflows). /metrics sends it as JSON or as Prometheus text.
import type { Operations } from './operations.js'
import type { LatencyHistogram, RequestCount, ToolCallCount } from './metrics-registry.js'
import type { SignalName } from './signal-recorder.js'
import { readWebhookState, type WebhookState } from '../webhooks/webhook-state.js'
import { readApprovalsPending } from '../control/approval-stats.js'
import { VERSION } from './version.js'

export interface MetricsSnapshot {
  readonly version: string
  readonly uptimeSeconds: number
  readonly requests: readonly RequestCount[]
  readonly latency: readonly LatencyHistogram[]
  /** MCP tool calls answered by this process, by tool and outcome. */
  readonly mcpToolCalls: readonly ToolCallCount[]
  readonly authFailures: number
  readonly scopeDenials: number
  readonly rateLimitDenials: number
  /** Cacheable machine API requests of this process answered from the page cache and computed. */
  readonly pageCache: { readonly hits: number; readonly misses: number }
  readonly window: { readonly seconds: number } & Readonly<Record<SignalName, number>>
  readonly webhooks: {
    readonly available: boolean
    readonly deliveriesByStatus: WebhookState['byStatus']
    readonly windowOutcomes: WebhookState['window']
    readonly queueDepth: number
    readonly oldestQueuedAgeSeconds: number | null
    readonly dlqSize: number
    readonly workers: WebhookState['workers']
  }
  readonly incidentsOpen: { readonly warn: number; readonly critical: number }
  /** Approvals waiting for a decision; 0 while the control plane is off. */
  readonly approvalsPending: number
  /** Active workflows due for longer than the grace period without a run started. */
  readonly workflowsOverdue: number
}

export async function metricsSnapshot(ops: Operations, now = Date.now()): Promise<MetricsSnapshot> {
  const { services } = ops
  const windowMs = services.settings.incidentWindowSeconds * 1000
  await ops.recorder.flush(now)
  const sums = await ops.recorder.windowSums(now)
  const w = await readWebhookState(services.database, windowMs, now)
  const open = (await ops.monitor.list({ limit: 200 })).filter((i) => i.status === 'open')
  return {
    version: VERSION,
    uptimeSeconds: Math.round((now - services.startedAt) / 1000),
    requests: ops.metrics.requestCounts(),
    latency: ops.metrics.latencyHistograms(),
    mcpToolCalls: ops.metrics.toolCallCounts(),
    authFailures: ops.metrics.denials.auth,
    scopeDenials: ops.metrics.denials.scope,
    rateLimitDenials: ops.metrics.denials.rate,
    pageCache: services.pageCache.counts(),
    window: { seconds: services.settings.incidentWindowSeconds, ...sums },
    webhooks: {
      available: w.available,
      deliveriesByStatus: w.byStatus,
      windowOutcomes: w.window,
      queueDepth: w.queued,
      oldestQueuedAgeSeconds: w.oldestQueuedAgeSeconds === null ? null : Math.round(w.oldestQueuedAgeSeconds),
      dlqSize: w.dlqSize,
      workers: w.workers,
    },
    incidentsOpen: {
      warn: open.filter((i) => i.currentSeverity === 'warn').length,
      critical: open.filter((i) => i.currentSeverity === 'critical').length,
    },
    approvalsPending: await readApprovalsPending(services.database, services.settings.writesExperimental),
    workflowsOverdue: (await services.jobs.overdue(0)).count,
  }
}
