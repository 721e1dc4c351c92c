// Schemas of the operations surfaces' `data` (OpenAPI and the schema catalog use them).
import { Type, type TSchema } from '@sinclair/typebox'
import { pageParams } from '../kernel/list-page.js'

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()])
const DateTime = () => Type.String({ format: 'date-time' })
const Open = (description?: string) => Type.Object({}, { additionalProperties: true, ...(description ? { description } : {}) })
const Severity = Type.Union([Type.Literal('warn'), Type.Literal('critical')])
const Threshold = Type.Object({
  count: Type.Optional(Type.Number()), rate: Type.Optional(Type.Number()), seconds: Type.Optional(Type.Number()),
}, { additionalProperties: false })

export const NoQuery = Type.Object({}, { additionalProperties: false })

export const HealthData = Type.Object({
  status: Type.Literal('ok'),
  version: Type.String(),
  uptimeSeconds: Type.Number({ minimum: 0 }),
  startedAt: DateTime(),
  now: DateTime(),
}, { additionalProperties: false })

export const ReadinessData = Type.Object({
  verdict: Type.Union([Type.Literal('ready'), Type.Literal('degraded'), Type.Literal('not_ready')]),
  checkedAt: DateTime(),
  checks: Type.Array(Type.Object({
    name: Type.String(),
    status: Type.Union([Type.Literal('ok'), Type.Literal('warn'), Type.Literal('fail')]),
    message: Type.String(),
    details: Type.Optional(Open()),
  }, { additionalProperties: false })),
}, { additionalProperties: false })

const Worker = Type.Object({
  workerId: Type.String(), heartbeatAgeSeconds: Type.Number(), delivered: Type.Integer(), deadLettered: Type.Integer(),
}, { additionalProperties: false })

export const MetricsData = Type.Object({
  version: Type.String(),
  uptimeSeconds: Type.Number(),
  requests: Type.Array(Type.Object({ route: Type.String(), method: Type.String(), status: Type.Integer(), count: Type.Integer() }, { additionalProperties: false })),
  latency: Type.Array(Type.Object({
    route: Type.String(),
    buckets: Type.Array(Type.Object({ le: Type.Union([Type.Number(), Type.Literal('+Inf')]), count: Type.Integer() }, { additionalProperties: false })),
    sumSeconds: Type.Number(),
    count: Type.Integer(),
  }, { additionalProperties: false })),
  mcpToolCalls: Type.Array(Type.Object({
    tool: Type.String({ description: 'Tool name; unknown for a name no tool has' }),
    outcome: Type.String({ description: 'ok, or the error code the call answered (FORBIDDEN, INVALID_REQUEST, NOT_FOUND, …)' }),
    count: Type.Integer(),
  }, { additionalProperties: false }), { description: 'MCP tool calls answered by this process' }),
  authFailures: Type.Integer(),
  scopeDenials: Type.Integer(),
  rateLimitDenials: Type.Integer(),
  window: Type.Object({
    seconds: Type.Integer(), requests: Type.Integer(), server_errors: Type.Integer(),
    auth_failures: Type.Integer({ description: 'Requests whose token was refused (unknown, expired, revoked, paused, address outside the allowlist)' }),
    auth_missing: Type.Integer({ description: 'Requests without any token' }),
    scope_denials: Type.Integer(), rate_limited: Type.Integer(),
    rate_limit_fallbacks: Type.Integer({ description: 'Requests counted in process memory because Redis was unavailable' }),
  }, { additionalProperties: false }),
  webhooks: Type.Object({
    available: Type.Boolean(),
    deliveriesByStatus: Type.Object({ queued: Type.Integer(), delivered: Type.Integer(), failed: Type.Integer() }, { additionalProperties: false }),
    windowOutcomes: Type.Object({ delivered: Type.Integer(), failedAttempts: Type.Integer(), deadLettered: Type.Integer() }, { additionalProperties: false }),
    queueDepth: Type.Integer(),
    oldestQueuedAgeSeconds: Nullable(Type.Number()),
    dlqSize: Type.Integer(),
    workers: Type.Array(Worker),
  }, { additionalProperties: false }),
  incidentsOpen: Type.Object({ warn: Type.Integer(), critical: Type.Integer() }, { additionalProperties: false }),
  pageCache: Type.Object({
    hits: Type.Integer({ description: 'Cacheable requests of this process answered from the page cache since it started' }),
    misses: Type.Integer({ description: 'Cacheable requests of this process computed (not in the cache) since it started' }),
  }, { additionalProperties: false }),
  approvalsPending: Type.Integer({ description: 'Control-plane approvals waiting for a decision; 0 while PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL is off' }),
  workflowsOverdue: Type.Integer({ description: 'Active workflows due for longer than PLUGIN_GATEHOUSE_JOBS_OVERDUE_GRACE_SECONDS with no run started' }),
}, { additionalProperties: false, description: 'With Accept: text/plain the body is Prometheus text exposition instead of the envelope' })

export const IncidentsQuery = Type.Object({
  severity: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('warn'), Type.Literal('critical')], { default: 'all', description: 'Highest severity reached; default all' })),
  status: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('open'), Type.Literal('resolved')], { default: 'all' })),
  ...pageParams,
}, { additionalProperties: false })

export const IncidentItem = Type.Object({
  id: Type.String(),
  category: Type.String(),
  status: Type.Union([Type.Literal('open'), Type.Literal('resolved')]),
  severity: Severity,
  currentSeverity: Nullable(Severity),
  openedAt: DateTime(),
  resolvedAt: Nullable(DateTime()),
  lastEvaluatedAt: DateTime(),
  signal: Type.String(),
  value: Type.Number(),
  peakValue: Type.Number(),
  windowSeconds: Type.Integer(),
  thresholds: Type.Object({ warn: Type.Optional(Threshold), critical: Type.Optional(Threshold) }, { additionalProperties: false }),
  summary: Type.String(),
  recommendedAction: Type.String(),
}, { additionalProperties: false })

const Risk = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Literal('critical')])

export const LifecycleData = Type.Object({
  credentials: Type.Array(Type.Object({
    credentialId: Type.String(),
    label: Type.String(),
    source: Type.Union([Type.Literal('managed'), Type.Literal('configured'), Type.Literal('legacy')]),
    status: Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('revoked')]),
    scopes: Type.Array(Type.String()),
    createdAt: Nullable(DateTime()),
    expiresAt: Nullable(DateTime()),
    expired: Type.Boolean(),
    expiresInDays: Nullable(Type.Integer()),
    lastUsedAt: Nullable(DateTime()),
    neverUsed: Type.Boolean(),
    daysSinceLastUse: Nullable(Type.Integer()),
    stale: Type.Boolean(),
    rotatedAt: Nullable(DateTime()),
    rotationDue: Nullable(Type.Boolean()),
    paused: Type.Boolean(),
    revoked: Type.Boolean(),
    risk: Risk,
    findings: Type.Array(Type.String()),
    recommendedAction: Type.String(),
  }, { additionalProperties: false })),
  summary: Type.Object({ low: Type.Integer(), medium: Type.Integer(), high: Type.Integer(), critical: Type.Integer(), total: Type.Integer() }, { additionalProperties: false }),
  limits: Open('Thresholds in days'),
}, { additionalProperties: false })

export const AdoptionData = Type.Object({
  credentialsConfigured: Type.Integer(),
  bySource: Type.Object({ managed: Type.Integer(), configured: Type.Integer(), legacy: Type.Integer() }, { additionalProperties: false }),
  usedAtLeastOnce: Type.Integer(),
  activeLast7Days: Type.Integer(),
  activeLast30Days: Type.Integer(),
  neverUsed: Type.Integer(),
  timeToFirstCall: Type.Object({ sampleSize: Type.Integer(), medianSeconds: Nullable(Type.Number()), p90Seconds: Nullable(Type.Number()) }, { additionalProperties: false }),
  computedAt: DateTime(),
}, { additionalProperties: false })

const DiagnosticStatus = Type.Union([Type.Literal('ok'), Type.Literal('warn'), Type.Literal('error')])
const DiagnosticCheck = Type.Object({ status: DiagnosticStatus, problems: Type.Array(Type.String()) }, { additionalProperties: true })

export const DiagnosticsData = Type.Object({
  generatedAt: DateTime(),
  version: Type.String(),
  summary: Type.Object({ status: DiagnosticStatus, warningCount: Type.Integer(), errorCount: Type.Integer() }, { additionalProperties: false }),
  checks: Type.Object({ auth: DiagnosticCheck, readiness: DiagnosticCheck, smoke: DiagnosticCheck, webhooks: DiagnosticCheck, storage: DiagnosticCheck }, { additionalProperties: false }),
  posture: Open('Redacted settings and credential posture'),
}, { additionalProperties: false })
