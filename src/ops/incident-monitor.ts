// Turns sliding-window signals into incidents kept in the database: an incident opens when
// its rule's measurement reaches a threshold, follows the level while open, and resolves
// when the measurement falls below every threshold (so it closes once the window has
// passed without the failures). Open and resolve times live in `ops_incidents`, with at
// most one open incident per category (a unique partial index), so every process that
// evaluates agrees on what is open and since when.
import { randomBytes } from 'node:crypto'
import type { Database, Db } from '../store/database.js'
import type { Settings } from '../kernel/settings.js'
import { incidentRules, severityOf, type IncidentRule, type Severity, type SignalSnapshot, type Threshold } from './incident-rules.js'
import type { SignalRecorder } from './signal-recorder.js'
import { readWebhookState } from '../webhooks/webhook-state.js'
import type { StorageHealth } from '../store/storage-health.js'

export interface Incident {
  readonly id: string
  readonly category: string
  readonly status: 'open' | 'resolved'
  /** Highest level reached while open. */
  readonly severity: Severity
  /** Level now; null once resolved. */
  readonly currentSeverity: Severity | null
  readonly openedAt: string
  readonly resolvedAt: string | null
  readonly lastEvaluatedAt: string
  readonly signal: string
  /** Latest measured value (the value at resolution, once resolved). */
  readonly value: number
  readonly peakValue: number
  readonly windowSeconds: number
  readonly thresholds: Readonly<Partial<Record<Severity, Threshold>>>
  readonly summary: string
  readonly recommendedAction: string
}

export interface IncidentQuery {
  readonly severity?: 'all' | Severity
  readonly status?: 'all' | 'open' | 'resolved'
  readonly limit?: number
  /** Start after this incident in the list's order (a page's last item). */
  readonly after?: IncidentPosition
}

/** Where an incident stands in the list's order: open ones first, then newest opened, then id. */
export interface IncidentPosition {
  readonly resolved: boolean
  readonly openedAt: number
  readonly id: string
}

export const incidentPosition = (i: Incident): IncidentPosition => ({ resolved: i.status === 'resolved', openedAt: Date.parse(i.openedAt), id: i.id })

/** Resolved incidents are kept this long. */
const KEEP_RESOLVED_MS = 30 * 86_400_000
const rank = (s: Severity | null) => (s === 'critical' ? 2 : s === 'warn' ? 1 : 0)
const rules = new Map(incidentRules.map((r) => [r.category, r]))

interface Row {
  id: string
  category: string
  signal: string
  severity: Severity
  peak_severity: Severity
  opened_at: number
  resolved_at: number | null
  updated_at: number
  value: number
  peak_value: number
  thresholds: unknown
  window_seconds: number
}

function toIncident(r: Row): Incident {
  const rule = rules.get(r.category) as IncidentRule | undefined
  const open = r.resolved_at === null
  return {
    id: r.id,
    category: r.category,
    status: open ? 'open' : 'resolved',
    severity: r.peak_severity,
    currentSeverity: open ? r.severity : null,
    openedAt: new Date(Number(r.opened_at)).toISOString(),
    resolvedAt: open ? null : new Date(Number(r.resolved_at)).toISOString(),
    lastEvaluatedAt: new Date(Number(r.updated_at)).toISOString(),
    signal: r.signal,
    value: Number(r.value),
    peakValue: Number(r.peak_value),
    windowSeconds: Number(r.window_seconds),
    thresholds: typeof r.thresholds === 'string' ? JSON.parse(r.thresholds) : (r.thresholds as Incident['thresholds']),
    summary: rule?.summary ?? r.category,
    recommendedAction: rule?.recommendedAction ?? 'See docs/operations.md',
  }
}

export class IncidentMonitor {
  private chain: Promise<void> = Promise.resolve()
  private timer: NodeJS.Timeout | undefined

  private readonly db: Db

  /**
   * `workflowsOverdue` counts overdue workflows (the job runtime owns its tables); `storage`
   * says whether the disk is full (an incident that must show even when it cannot be stored).
   */
  constructor(private readonly database: Database, private readonly settings: Settings, private readonly recorder: SignalRecorder, private readonly workflowsOverdue: () => Promise<number>, private readonly storage?: StorageHealth) {
    this.db = database.db
  }

  get windowMs(): number {
    return this.settings.incidentWindowSeconds * 1000
  }

  /** Re-evaluates on a timer so open and resolve times track the signals, also when nobody reads /incidents. */
  start(): void {
    if (this.timer) return
    const every = Math.min(30_000, Math.max(1000, Math.floor(this.windowMs / 4)))
    this.timer = setInterval(() => { void this.evaluate().catch(() => {}) }, every)
    this.timer.unref()
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    await this.chain.catch(() => {})
  }

  /** The signals over the window ending now, after adding this process's pending counts. */
  async snapshot(now = Date.now()): Promise<SignalSnapshot> {
    const full = await this.storage?.probe(now)
    // With the disk full the counts cannot be added; they stay pending for the next flush.
    await this.recorder.flush(now).catch((err: unknown) => { if (!this.storage?.noteError(err, now)) throw err })
    return {
      windowSeconds: this.settings.incidentWindowSeconds,
      sums: await this.recorder.windowSums(now),
      webhooksConfigured: Boolean(this.settings.webhookUrl && this.settings.webhookSecret),
      webhook: await readWebhookState(this.database, this.windowMs, now),
      workflowsOverdue: await this.workflowsOverdue(),
      storageFullSeconds: full ? Math.max(0, Math.round((now - full.since) / 1000)) : null,
    }
  }

  /**
   * One evaluation at a time per process; callers wait for a fresh one. With the disk full its
   * writes fail, which is not the reader's failure: list() still shows the incident.
   */
  evaluate(now?: number): Promise<void> {
    const run = this.chain.catch(() => {}).then(() => this.evaluateNow(now ?? Date.now()))
      .catch((err: unknown) => { if (!this.storage?.noteError(err)) throw err })
    this.chain = run
    return run
  }

  private async evaluateNow(now: number): Promise<void> {
    const snap = await this.snapshot(now)
    const open = (await this.db.selectFrom('ops_incidents').selectAll().where('resolved_at', 'is', null).execute()) as Row[]
    let failed: unknown
    for (const rule of incidentRules) {
      // One rule's write failing (the disk full) does not keep the others from theirs.
      await this.applyRule(rule, snap, open, now).catch((err: unknown) => { failed ??= err })
    }
    await this.recordEndedStorageEpisode(open)
    if (failed !== undefined) throw failed
    await this.db.deleteFrom('ops_incidents').where('resolved_at', '<', now - KEEP_RESOLVED_MS).execute()
  }

  private async applyRule(rule: IncidentRule, snap: SignalSnapshot, open: readonly Row[], now: number): Promise<void> {
    const m = rule.measure(snap)
    const level = severityOf(rule, m)
    const current = open.find((r) => r.category === rule.category)
    if (level && m) {
      if (!current) {
        await this.db.insertInto('ops_incidents').values({
          id: newIncidentId(), category: rule.category, signal: rule.signal,
          severity: level, peak_severity: level, opened_at: now, resolved_at: null, updated_at: now,
          value: m.value, peak_value: m.value, thresholds: JSON.stringify(rule.thresholds), window_seconds: snap.windowSeconds,
        }).onConflict((oc) => oc.column('category').where('resolved_at', 'is', null).doNothing()).execute()
      } else {
        await this.db.updateTable('ops_incidents').set({
          severity: level,
          peak_severity: rank(level) > rank(current.peak_severity) ? level : current.peak_severity,
          value: m.value,
          peak_value: Math.max(Number(current.peak_value), m.value),
          updated_at: now,
        }).where('id', '=', current.id).where('resolved_at', 'is', null).execute()
      }
    } else if (current) {
      await this.db.updateTable('ops_incidents').set({ resolved_at: now, updated_at: now, value: m?.value ?? 0 })
        .where('id', '=', current.id).where('resolved_at', 'is', null).execute()
    }
  }

  /**
   * A disk-full episode that ended before any evaluation could store its incident (the disk
   * was full at each one) is recorded now, as resolved, so the history shows it.
   */
  private async recordEndedStorageEpisode(open: readonly Row[]): Promise<void> {
    const episode = this.storage?.takeEndedEpisode()
    if (!episode || open.some((r) => r.category === 'storage_full')) return
    const rule = rules.get('storage_full') as IncidentRule
    const seconds = Math.round((episode.until - episode.since) / 1000)
    try {
      await this.db.insertInto('ops_incidents').values({
        id: newIncidentId(), category: rule.category, signal: rule.signal, severity: 'critical', peak_severity: 'critical',
        opened_at: episode.since, resolved_at: episode.until, updated_at: episode.until, value: seconds, peak_value: seconds,
        thresholds: JSON.stringify(rule.thresholds), window_seconds: this.settings.incidentWindowSeconds,
      }).execute()
    } catch (err) {
      this.storage?.returnEndedEpisode(episode)
      throw err
    }
  }

  /**
   * Open incidents first, then the most recently opened; filtered by highest severity reached.
   * While the disk is full and its incident could not be stored, it is listed from memory.
   */
  async list(q: IncidentQuery = {}): Promise<Incident[]> {
    const stored = await listIncidents(this.db, q)
    const full = this.storage?.full
    if (!full || q.after !== undefined || q.status === 'resolved' || q.severity === 'warn' || stored.some((i) => i.category === 'storage_full' && i.status === 'open')) return stored
    return [unstoredStorageIncident(full.since, this.settings.incidentWindowSeconds), ...stored].slice(0, q.limit ?? 50)
  }
}

const newIncidentId = () => `inc_${randomBytes(8).toString('hex')}`

/** The storage_full incident as this process sees it, when the full disk kept it from being stored. */
function unstoredStorageIncident(since: number, windowSeconds: number): Incident {
  const now = Date.now()
  const seconds = Math.max(0, Math.round((now - since) / 1000))
  return toIncident({
    id: 'inc_storage_full_unstored', category: 'storage_full', signal: 'seconds_storage_full', severity: 'critical', peak_severity: 'critical',
    opened_at: since, resolved_at: null, updated_at: now, value: seconds, peak_value: seconds,
    thresholds: (rules.get('storage_full') as IncidentRule).thresholds, window_seconds: windowSeconds,
  })
}

/** Incidents as the last evaluation (of any process) left them: open first, then the most recently opened. */
export async function listIncidents(db: Db, q: IncidentQuery = {}): Promise<Incident[]> {
  let query = db.selectFrom('ops_incidents').selectAll()
  if (q.severity && q.severity !== 'all') query = query.where('peak_severity', '=', q.severity)
  if (q.status === 'open') query = query.where('resolved_at', 'is', null)
  if (q.status === 'resolved') query = query.where('resolved_at', 'is not', null)
  const after = q.after
  if (after) {
    // Later in the same group (older, or as old with a greater id); for the open group, also every resolved one.
    query = query.where((eb) => {
      const laterInGroup = eb.and([
        eb('resolved_at', after.resolved ? 'is not' : 'is', null),
        eb.or([eb('opened_at', '<', after.openedAt), eb.and([eb('opened_at', '=', after.openedAt), eb('id', '>', after.id)])]),
      ])
      return after.resolved ? laterInGroup : eb.or([eb('resolved_at', 'is not', null), laterInGroup])
    })
  }
  const rows = (await query
    .orderBy((eb) => eb.case().when('resolved_at', 'is', null).then(0).else(1).end())
    .orderBy('opened_at', 'desc').orderBy('id')
    .limit(q.limit ?? 50).execute()) as Row[]
  return rows.map(toIncident)
}
