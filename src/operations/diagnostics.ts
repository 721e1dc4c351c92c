// The diagnostics bundle: one redacted document an operator can attach to a support
// request. `summary` and `checks{auth, readiness, smoke, webhooks, storage}` follow the
// spec's example; `posture` is a snapshot of the settings and credentials that matter for
// security. Redacted means: no token, token hint, secret, database URL, receiver path or
// record content; only counts, names, flags and hosts.
import type { Caller } from '../kernel/caller.js'
import { round2 } from '../kernel/numbers.js'
import type { Services } from './services.js'
import { changeLogStats, readChanges } from '../store/change-log.js'
import { countCheckpoints } from '../integration/sync-state-store.js'
import { migrations, pendingMigrations } from '../store/migrations/index.js'
import { schemaPlan } from '../store/schema-reconcile.js'
import { differencesOf } from '../store/schema-plan.js'
import type { IncidentMonitor } from '../ops/incident-monitor.js'
import { checkReadiness, type ReadinessCheck } from './readiness.js'
import { lifecycleReport } from '../ops/lifecycle.js'
import { readWebhookState } from '../webhooks/webhook-state.js'
import { VERSION } from '../ops/version.js'
import { pingDatabase } from '../store/ping.js'

export type DiagnosticStatus = 'ok' | 'warn' | 'error'

export interface DiagnosticCheck {
  readonly status: DiagnosticStatus
  readonly problems: readonly string[]
  readonly [detail: string]: unknown
}

export interface DiagnosticsBundle {
  readonly generatedAt: string
  readonly version: string
  readonly summary: { readonly status: DiagnosticStatus; readonly warningCount: number; readonly errorCount: number }
  readonly checks: {
    readonly auth: DiagnosticCheck
    readonly readiness: DiagnosticCheck
    readonly smoke: DiagnosticCheck
    readonly webhooks: DiagnosticCheck
    readonly storage: DiagnosticCheck
  }
  readonly posture: Readonly<Record<string, unknown>>
}

interface Problem { readonly level: 'warn' | 'error'; readonly text: string }

function finish(problems: readonly Problem[], details: Record<string, unknown>): DiagnosticCheck & { readonly _problems: readonly Problem[] } {
  const status: DiagnosticStatus = problems.some((p) => p.level === 'error') ? 'error' : problems.length > 0 ? 'warn' : 'ok'
  return { status, problems: problems.map((p) => p.text), ...details, _problems: problems }
}

const fromReadiness = (c: ReadinessCheck): Problem[] =>
  c.status === 'ok' ? [] : [{ level: c.status === 'fail' ? 'error' : 'warn', text: `${c.name}: ${c.message}` }]

async function authCheck(services: Services, caller: Caller | undefined, now: number) {
  await services.credentials.flushUsage().catch(() => {})
  const records = await services.credentials.list()
  const report = lifecycleReport(records, now)
  const problems: Problem[] = []
  const usable = report.credentials.filter((c) => c.status === 'active' && !c.expired)
  if (usable.length === 0) problems.push({ level: 'error', text: 'no usable credential: machine clients cannot authenticate' })
  if (report.summary.critical > 0) problems.push({ level: 'warn', text: `${report.summary.critical} credential(s) at critical risk (see /lifecycle)` })
  if (report.summary.high > 0) problems.push({ level: 'warn', text: `${report.summary.high} credential(s) at high risk (see /lifecycle)` })
  if (services.settings.apiToken) problems.push({ level: 'warn', text: 'the legacy default token (PLUGIN_GATEHOUSE_API_TOKEN) is configured' })
  if (services.settings.rateLimitPerMinute === 0) problems.push({ level: 'warn', text: 'rate limiting is off (PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE=0)' })
  const count = (f: (c: (typeof report.credentials)[number]) => boolean) => report.credentials.filter(f).length
  return finish(problems, {
    caller: caller ? { credentialId: caller.credentialId, source: caller.source, scopeCount: caller.grantedScopes.length } : null,
    credentials: {
      total: report.credentials.length,
      active: count((c) => c.status === 'active' && !c.expired),
      paused: count((c) => c.paused),
      revoked: count((c) => c.revoked),
      expired: count((c) => c.expired),
      neverUsed: count((c) => c.neverUsed && !c.revoked),
      withIpAllowlist: records.filter((r) => r.ipAllowlist.length > 0).length,
      byRisk: { low: report.summary.low, medium: report.summary.medium, high: report.summary.high, critical: report.summary.critical },
    },
  })
}

/** Exercises the read path end to end without HTTP: query, document parse, change feed, cursor signing. */
async function smokeCheck(services: Services) {
  const steps: { name: string; status: 'ok' | 'error'; ms: number }[] = []
  const step = async (name: string, fn: () => Promise<void>) => {
    const started = performance.now()
    try {
      await fn()
      steps.push({ name, status: 'ok', ms: round2(performance.now() - started) })
    } catch {
      steps.push({ name, status: 'error', ms: round2(performance.now() - started) })
    }
  }
  await step('database round trip', async () => { await pingDatabase(services.database.db) })
  // The first family served stands for all: one keyset page read and parsed.
  const family = services.resources.served[0]
  await step(`list ${family.type} page`, async () => {
    const rows = await services.reader.list(family, { conditions: [], sort: 'updatedAt', desc: false, limit: 1, withSensitive: false })
    for (const r of rows) JSON.parse(r.doc)
  })
  await step('read change feed', async () => { await readChanges(services.database.db, { afterSeq: 0, limit: 1 }) })
  await step('sign and verify a cursor', async () => {
    const c = services.cursors.encode({ s: 1 })
    if (services.cursors.decode<{ s: number }>(c).s !== 1) throw new Error('cursor round trip')
  })
  await step('read sync checkpoints', async () => { await countCheckpoints(services.database.db) })
  const problems: Problem[] = steps.filter((s) => s.status === 'error').map((s) => ({ level: 'error', text: `smoke step failed: ${s.name}` }))
  return finish(problems, { steps })
}

async function storageCheck(services: Services) {
  const { db, adapter } = services.database
  const pending = await pendingMigrations(services.database)
  const problems: Problem[] = pending.map((p) => ({ level: 'error' as const, text: `migration ${p} not applied` }))
  // Readiness has just tried a write if the disk was full, so this is as fresh as it can be.
  const full = services.storage.full
  if (full) problems.push({ level: 'error', text: `the database's disk is full since ${new Date(full.since).toISOString()} (${full.code}): writes answer 507 STORAGE_FULL until space is freed` })
  const schema = pending.length === 0 ? differencesOf(await schemaPlan(services.database, services.resources.all)) : []
  problems.push(...schema.map((d) => ({ level: d.severity === 'fail' ? 'error' as const : 'warn' as const, text: `schema: ${d.message}` })))
  const log = await changeLogStats(db)
  const checkpoints = await countCheckpoints(db)
  const iso = (v: number | null) => (v === null ? null : new Date(v).toISOString())
  return finish(problems, {
    dialect: adapter.name,
    diskFull: full ? { since: new Date(full.since).toISOString(), code: full.code, cause: full.cause } : null,
    migrations: { known: migrations.length, applied: migrations.length - pending.length, pending },
    schema: { matchesDeclarations: pending.length === 0 && schema.length === 0, differences: schema },
    changeLog: { entries: log.entries, oldestAt: iso(log.oldestAt), newestAt: iso(log.newestAt), retentionDays: services.settings.changesRetentionDays },
    syncCheckpoints: checkpoints,
  })
}

async function webhooksCheck(services: Services, readiness: readonly ReadinessCheck[], now: number) {
  const s = services.settings
  const state = await readWebhookState(services.database, s.incidentWindowSeconds * 1000, now)
  const related = readiness.filter((c) => ['webhookSettings', 'deliveryBacklog', 'workerHeartbeat', 'deadLetters'].includes(c.name))
  let receiver: { scheme: string; host: string } | null = null
  if (s.webhookUrl) {
    const u = new URL(s.webhookUrl)
    receiver = { scheme: u.protocol.replace(':', ''), host: u.host }
  }
  const problems = related.flatMap(fromReadiness)
  // Signed but unencrypted: payloads (snapshots of records) would cross the network in clear.
  if (receiver && receiver.scheme !== 'https' && !s.devMode && !/^(localhost|127\.|\[::1\])/.test(receiver.host)) {
    problems.push({ level: 'warn', text: 'webhooks: the receiver URL is not https' })
  }
  return finish(problems, {
    configured: Boolean(s.webhookUrl && s.webhookSecret),
    receiver,
    secretConfigured: Boolean(s.webhookSecret),
    timeoutSeconds: s.webhookTimeoutSeconds,
    maxAttempts: s.webhookMaxAttempts,
    testSinkEnabled: s.webhookTestSink,
    queueDepth: state.queued,
    oldestQueuedAgeSeconds: state.oldestQueuedAgeSeconds === null ? null : Math.round(state.oldestQueuedAgeSeconds),
    dlqSize: state.dlqSize,
    workers: state.workers.length,
  })
}

export async function diagnosticsBundle(services: Services, monitor: IncidentMonitor | undefined, caller?: Caller, now = Date.now()): Promise<DiagnosticsBundle> {
  const readiness = await checkReadiness(services, monitor, now)
  const dbUp = readiness.checks.find((c) => c.name === 'database')?.status === 'ok'
  const unavailable = (what: string) => finish([{ level: 'error', text: `${what} unavailable: the database cannot be reached` }], {})
  const checks = {
    auth: dbUp ? await authCheck(services, caller, now) : unavailable('credentials'),
    readiness: finish(readiness.checks.flatMap(fromReadiness), {
      verdict: readiness.verdict,
      checks: readiness.checks.map((c) => ({ name: c.name, status: c.status })),
    }),
    smoke: await smokeCheck(services),
    webhooks: dbUp ? await webhooksCheck(services, readiness.checks, now) : unavailable('webhook state'),
    storage: dbUp ? await storageCheck(services) : unavailable('storage'),
  }
  // Count each problem once: readiness problems repeated under webhooks are not counted twice.
  const seen = new Map<string, Problem>()
  for (const c of Object.values(checks)) for (const p of c._problems) seen.set(p.text, p)
  const all = [...seen.values()]
  const errorCount = all.filter((p) => p.level === 'error').length
  const warningCount = all.length - errorCount
  const strip = ({ _problems, ...rest }: DiagnosticCheck & { _problems: readonly Problem[] }): DiagnosticCheck => { void _problems; return rest }
  const s = services.settings
  const open = dbUp && monitor ? (await monitor.list({ limit: 200 })).filter((i) => i.status === 'open') : []
  return {
    generatedAt: new Date(now).toISOString(),
    version: VERSION,
    summary: { status: errorCount > 0 ? 'error' : warningCount > 0 ? 'warn' : 'ok', warningCount, errorCount },
    checks: { auth: strip(checks.auth), readiness: strip(checks.readiness), smoke: strip(checks.smoke), webhooks: strip(checks.webhooks), storage: strip(checks.storage) },
    posture: {
      devMode: s.devMode,
      flags: { enableAddressesApi: s.enableAddressesApi, enableUsersApi: s.enableUsersApi, writesExperimental: s.writesExperimental, webhookTestSink: s.webhookTestSink },
      rateLimitPerMinute: s.rateLimitPerMinute,
      sharedRateLimitStore: s.redisUrl ? 'redis' : 'process',
      adminTokenConfigured: Boolean(s.adminToken),
      legacyTokenConfigured: Boolean(s.apiToken),
      configuredCredentials: s.apiCredentials.length,
      // Each loaded provider, its resources and whether it is available (the entry is the module as configured).
      providers: services.providers.statuses(),
      changesRetentionDays: s.changesRetentionDays,
      incidentWindowSeconds: s.incidentWindowSeconds,
      settingsWarnings: s.warnings,
      openIncidents: open.map((i) => ({ category: i.category, severity: i.currentSeverity, openedAt: i.openedAt })),
    },
  }
}
