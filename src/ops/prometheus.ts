// Prometheus text exposition (format 0.0.4) of a metrics snapshot. Counters end in
// `_total`; the webhook row counts are gauges because delivered rows are pruned.
import type { MetricsSnapshot } from './metrics-snapshot.js'

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

type Labels = Readonly<Record<string, string | number>>

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
const labelText = (labels: Labels) => {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(String(v))}"`)
  return parts.length ? `{${parts.join(',')}}` : ''
}
const numText = (n: number) => (Number.isFinite(n) ? String(n) : n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN')

class Exposition {
  private readonly lines: string[] = []

  family(name: string, type: 'counter' | 'gauge' | 'histogram', help: string, samples: readonly [Labels, number][], suffix = ''): void {
    this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`)
    for (const [labels, value] of samples) this.lines.push(`${name}${suffix}${labelText(labels)} ${numText(value)}`)
  }

  raw(line: string): void {
    this.lines.push(line)
  }

  text(): string {
    return this.lines.join('\n') + '\n'
  }
}

export function prometheusText(m: MetricsSnapshot): string {
  const e = new Exposition()
  e.family('gatehouse_info', 'gauge', 'Gatehouse version of this process.', [[{ version: m.version }, 1]])
  e.family('gatehouse_uptime_seconds', 'gauge', 'Seconds since this process started.', [[{}, m.uptimeSeconds]])
  e.family('gatehouse_http_requests_total', 'counter', 'Machine API requests answered, by route key, method and status.',
    m.requests.map((r) => [{ route: r.route, method: r.method, status: r.status }, r.count]))

  const hist = 'gatehouse_http_request_duration_seconds'
  e.raw(`# HELP ${hist} Machine API request latency by route key.`)
  e.raw(`# TYPE ${hist} histogram`)
  for (const h of m.latency) {
    for (const b of h.buckets) e.raw(`${hist}_bucket${labelText({ route: h.route, le: b.le === '+Inf' ? '+Inf' : String(b.le) })} ${b.count}`)
    e.raw(`${hist}_sum${labelText({ route: h.route })} ${h.sumSeconds}`)
    e.raw(`${hist}_count${labelText({ route: h.route })} ${h.count}`)
  }

  e.family('gatehouse_mcp_tool_calls_total', 'counter', 'MCP tool calls answered, by tool and outcome (ok or the error code).',
    m.mcpToolCalls.map((c) => [{ tool: c.tool, outcome: c.outcome }, c.count]))
  e.family('gatehouse_auth_failures_total', 'counter', 'Requests refused by authentication (401, and 403 for addresses outside an allowlist).', [[{}, m.authFailures]])
  e.family('gatehouse_scope_denials_total', 'counter', 'Requests refused for a missing scope.', [[{}, m.scopeDenials]])
  e.family('gatehouse_rate_limit_denials_total', 'counter', 'Requests refused by the rate limit.', [[{}, m.rateLimitDenials]])
  e.family('gatehouse_page_cache_requests_total', 'counter', 'Cacheable machine API requests of this process, answered from the page cache (hit) or computed (miss).',
    [[{ outcome: 'hit' }, m.pageCache.hits], [{ outcome: 'miss' }, m.pageCache.misses]])
  e.family('gatehouse_window_signal', 'gauge', `Reliability signals over the incident window (${m.window.seconds} s), all processes.`,
    (['requests', 'server_errors', 'auth_failures', 'auth_missing', 'scope_denials', 'rate_limited', 'rate_limit_fallbacks'] as const).map((s) => [{ signal: s }, m.window[s]]))

  const w = m.webhooks
  e.family('gatehouse_webhook_deliveries', 'gauge', 'Webhook deliveries kept in the queue table, by status.',
    (['queued', 'delivered', 'failed'] as const).map((s) => [{ status: s }, w.deliveriesByStatus[s]]))
  e.family('gatehouse_webhook_window_outcomes', 'gauge', 'Webhook deliveries over the incident window, by outcome.', [
    [{ outcome: 'delivered' }, w.windowOutcomes.delivered],
    [{ outcome: 'failed_attempt' }, w.windowOutcomes.failedAttempts],
    [{ outcome: 'dead_lettered' }, w.windowOutcomes.deadLettered],
  ])
  e.family('gatehouse_webhook_worker_deliveries_total', 'counter', 'Deliveries by outcome per running webhook worker since it started.',
    w.workers.flatMap((x) => [[{ worker: x.workerId, outcome: 'delivered' }, x.delivered], [{ worker: x.workerId, outcome: 'dead_lettered' }, x.deadLettered]] as [Labels, number][]))
  e.family('gatehouse_webhook_queue_depth', 'gauge', 'Webhook deliveries waiting to be sent.', [[{}, w.queueDepth]])
  e.family('gatehouse_webhook_oldest_queued_age_seconds', 'gauge', 'Age of the oldest queued webhook delivery (0 when none).', [[{}, w.oldestQueuedAgeSeconds ?? 0]])
  e.family('gatehouse_webhook_dlq_size', 'gauge', 'Dead-lettered webhook deliveries waiting for replay.', [[{}, w.dlqSize]])
  e.family('gatehouse_webhook_worker_heartbeat_age_seconds', 'gauge', 'Seconds since each webhook worker last reported.',
    w.workers.map((x) => [{ worker: x.workerId }, Math.round(x.heartbeatAgeSeconds)]))
  e.family('gatehouse_incidents_open', 'gauge', 'Open incidents by current severity.', [
    [{ severity: 'warn' }, m.incidentsOpen.warn], [{ severity: 'critical' }, m.incidentsOpen.critical],
  ])
  e.family('gatehouse_workflows_overdue', 'gauge', 'Active workflows due for longer than the grace period with no run started.', [[{}, m.workflowsOverdue]])
  e.family('gatehouse_approvals_pending', 'gauge', 'Control-plane approvals waiting for a decision (0 while the control plane is off).', [[{}, m.approvalsPending]])
  return e.text()
}
