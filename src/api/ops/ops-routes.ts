// The operations surfaces of the machine API: /health, /readiness, /metrics, /incidents,
// /lifecycle, /adoption/metrics and /diagnostics/bundle. Each is a thin route over an
// operation in this folder; the CLI calls the same operations.
import { Type } from '@sinclair/typebox'
import type { MachineRoute } from '../../kernel/machine-route.js'
import type { Operations } from '../../ops/operations.js'
import type { Services } from '../../operations/services.js'
import { checkReadiness } from '../../operations/readiness.js'
import { metricsSnapshot } from '../../ops/metrics-snapshot.js'
import { prometheusText, PROMETHEUS_CONTENT_TYPE } from '../../ops/prometheus.js'
import { prefersPrometheusText } from '../../ops/accept.js'
import { lifecycleReport } from '../../ops/lifecycle.js'
import { adoptionMetrics } from '../../ops/adoption.js'
import { diagnosticsBundle } from '../../operations/diagnostics.js'
import { incidentPage } from '../../ops/incident-page.js'
import { VERSION } from '../../ops/version.js'
import {
  AdoptionData, DiagnosticsData, HealthData, IncidentItem, IncidentsQuery, LifecycleData, MetricsData, NoQuery, ReadinessData,
} from '../../ops/ops-schemas.js'

export function opsRoutes(ops: Operations<Services>): MachineRoute[] {
  const { services } = ops
  const base = { method: 'GET', tag: 'operations', querystring: NoQuery } as const
  return [
    {
      ...base, path: '/health', key: 'health.get', scope: 'health:read', data: HealthData,
      summary: 'Liveness, version and uptime of this process',
      handler: async () => {
        const now = Date.now()
        return { data: {
          status: 'ok', version: VERSION, uptimeSeconds: Math.round((now - services.startedAt) / 1000),
          startedAt: new Date(services.startedAt).toISOString(), now: new Date(now).toISOString(),
        } }
      },
    },
    {
      ...base, path: '/readiness', key: 'readiness.get', scope: 'readiness:read', data: ReadinessData,
      summary: 'Readiness verdict (ready, degraded, not_ready) and the checks behind it',
      handler: async () => ({ data: await checkReadiness(services, ops.monitor) }),
    },
    {
      ...base, path: '/metrics', key: 'metrics.get', scope: 'metrics:read', data: MetricsData,
      alternates: [{ mediaType: 'text/plain', description: 'Prometheus text exposition format 0.0.4 (Accept: text/plain)' }],
      summary: 'Counters, gauges and latency histograms; Prometheus text with Accept: text/plain',
      handler: async ({ request, reply }) => {
        const snapshot = await metricsSnapshot(ops)
        reply.header('Vary', 'Accept')
        if (prefersPrometheusText(request.headers.accept)) return { text: prometheusText(snapshot), contentType: PROMETHEUS_CONTENT_TYPE }
        return { data: snapshot }
      },
    },
    {
      ...base, path: '/incidents', key: 'incidents.list', scope: 'incidents:read', querystring: IncidentsQuery,
      data: Type.Array(IncidentItem), list: true, itemName: 'IncidentsItem', errors: ['INVALID_REQUEST'],
      summary: 'Open and recent incidents derived from sliding-window reliability signals (strictly redacted): open first, then newest opened',
      handler: async ({ query }) => {
        await ops.monitor.evaluate()
        return incidentPage((q) => ops.monitor.list(q), services.cursors, query)
      },
    },
    {
      ...base, path: '/lifecycle', key: 'lifecycle.get', scope: 'lifecycle:read', data: LifecycleData,
      summary: 'Every credential with expiry, use, rotation and status findings, a risk level and a recommended action',
      handler: async () => {
        await services.credentials.flushUsage()
        return { data: lifecycleReport(await services.credentials.list()) }
      },
    },
    {
      ...base, path: '/adoption/metrics', key: 'adoption.metrics', scope: 'adoption:read', data: AdoptionData,
      summary: 'Credentials configured, used, active in 7 and 30 days, and time to first call',
      handler: async () => {
        await services.credentials.flushUsage()
        return { data: adoptionMetrics(await services.credentials.list()) }
      },
    },
    {
      ...base, path: '/diagnostics/bundle', key: 'diagnostics.bundle', scope: 'diagnostics:read', data: DiagnosticsData,
      summary: 'Redacted diagnostics: summary, checks (auth, readiness, smoke, webhooks, storage) and posture',
      handler: async ({ caller }) => ({ data: await diagnosticsBundle(services, ops.monitor, caller) }),
    },
  ]
}
