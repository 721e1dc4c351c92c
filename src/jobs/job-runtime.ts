// The job runtime of one process (DESIGN §9): workflow definitions, the workflows a caller
// runs, run reports with leases, the lease timer, the overdue count operations show, and
// the read boundary the machine API applies. Routes (machine and admin API), the CLI and
// the panel call these operations; none of them knows HTTP.
import type { Logger } from 'pino'
import { notFound, type ErrorDetail } from '../kernel/errors.js'
import type { Database } from '../store/database.js'
import type { JobActor, JobAuditHook, JobContext } from './job-context.js'
import { fullBoundary, type BoundaryAxis } from '../resources/boundary-axes.js'
import { SweepTimer } from '../store/sweep-timer.js'
import { liveRunOf, ReadBoundaryCache } from './read-boundary.js'
import { type ReadBoundary } from '../kernel/read-boundary.js'
import { abandonExpired } from './run-lease.js'
import { reportRun, type ApprovalRequester, type RunReport } from './run-report.js'
import { createWorkflow, createWorkflowProblems, deleteWorkflow, setWorkflowStatus, updateWorkflow, type CredentialCheck } from './workflow-definitions.js'
import { latestRuns, overdueWorkflows, queryWorkflows, runsOf, workflowById, type WorkflowQuery } from './workflow-queries.js'
import { workflowState } from './workflow-state.js'
import { runView, workflowDefinition, type Run, type WorkflowRecord, type WorkflowView } from './workflow.js'

export interface JobRuntimeOptions {
  readonly leaseMs: number
  readonly overdueGraceMs: number
  readonly audit: JobAuditHook
  readonly approvalRequester: ApprovalRequester
  readonly credentialExists: CredentialCheck
  readonly logger: Logger
  /** The registry's boundary axes. */
  readonly boundaryAxes: readonly BoundaryAxis[]
}

export type WorkflowListQuery = Omit<WorkflowQuery, 'now'>

export class JobRuntime {
  private clock: () => number = Date.now
  private readonly ctx: JobContext
  /** Abandons runs whose lease ran out: every 5 s, and at the end of each lease this process grants (docs/jobs.md). */
  private readonly timer: SweepTimer
  private readonly boundaries: ReadBoundaryCache

  constructor(readonly database: Database, private readonly options: JobRuntimeOptions) {
    this.boundaries = new ReadBoundaryCache(database, () => this.now())
    this.ctx = {
      database, leaseMs: options.leaseMs, overdueGraceMs: options.overdueGraceMs, audit: options.audit, boundaryAxes: options.boundaryAxes,
      now: () => this.now(), changed: () => this.boundaries.clear(),
    }
    this.timer = new SweepTimer(() => abandonExpired(this.ctx), options.logger, 'lease sweep', 5_000)
  }

  now(): number {
    return this.clock()
  }

  /** Replaces the clock (tests move time instead of waiting); also drops cached boundaries. */
  useClock(clock: () => number): void {
    this.clock = clock
    this.boundaries.clear()
  }

  get leaseMs(): number {
    return this.options.leaseMs
  }

  // Definitions (operators).

  async create(input: unknown, actor: JobActor): Promise<WorkflowView> {
    return this.view(await createWorkflow(this.ctx, input, actor, this.options.credentialExists))
  }

  /** Every problem create would name for `input` (schema, schedule, credential, boundary), without creating. */
  createProblems(input: unknown): Promise<ErrorDetail[]> {
    return createWorkflowProblems(this.ctx, input, this.options.credentialExists)
  }

  async update(id: string, patch: unknown, actor: JobActor): Promise<WorkflowView> {
    return this.view(await updateWorkflow(this.ctx, id, patch, actor, this.options.credentialExists))
  }

  async pause(id: string, actor: JobActor): Promise<WorkflowView> {
    return this.view(await setWorkflowStatus(this.ctx, id, 'paused', actor))
  }

  async resume(id: string, actor: JobActor): Promise<WorkflowView> {
    return this.view(await setWorkflowStatus(this.ctx, id, 'active', actor))
  }

  delete(id: string, actor: JobActor): Promise<void> {
    return deleteWorkflow(this.ctx, id, actor)
  }

  // Reads (operators see every workflow; machine clients pass their credentialId).

  async get(id: string, credentialId?: string): Promise<WorkflowView> {
    const w = await workflowById(this.database.db, id)
    // Another credential's workflow does not exist for that caller.
    if (!w || (credentialId !== undefined && w.credentialId !== credentialId)) throw notFound(`No workflow with id ${id}`)
    return this.view(w)
  }

  /** A page in creation order; one more is read to tell whether more follow. */
  async list(q: WorkflowListQuery): Promise<{ items: WorkflowView[]; hasMore: boolean }> {
    const rows = await queryWorkflows(this.database.db, { ...q, now: this.now(), limit: q.limit + 1 })
    const page = rows.slice(0, q.limit)
    return { items: await this.views(page), hasMore: rows.length > q.limit }
  }

  /** A workflow's runs, newest first. */
  async runs(id: string, limit: number, before?: { startedAt: number; id: string }): Promise<{ items: Run[]; hasMore: boolean }> {
    if (!(await workflowById(this.database.db, id))) throw notFound(`No workflow with id ${id}`)
    const rows = await runsOf(this.database.db, id, limit + 1, before)
    return { items: rows.slice(0, limit).map(runView), hasMore: rows.length > limit }
  }

  // Run reports (machine clients).

  async report(credentialId: string, report: RunReport, requestId: string | null): Promise<Run> {
    const run = await reportRun(this.ctx, { credentialId, requestId }, report, this.options.approvalRequester)
    if (run.leaseExpiresAt !== null) this.timer.arm(Date.now() + (Date.parse(run.leaseExpiresAt) - this.now()))
    return run
  }

  // Operations.

  /** Active workflows due for longer than the grace period with no run started (a sample of up to `limit`). */
  overdue(limit?: number): Promise<{ count: number; sample: { id: string; name: string }[] }> {
    return overdueWorkflows(this.database.db, this.now(), this.options.overdueGraceMs, limit)
  }

  get overdueGraceMs(): number {
    return this.options.overdueGraceMs
  }

  /** The boundary on a credential's machine-API reads now, or null (cached briefly). */
  readBoundary(credentialId: string): Promise<ReadBoundary | null> {
    return this.boundaries.get(credentialId)
  }

  /** `readBoundary`'s answer when it is known without waiting, else undefined. */
  knownReadBoundary(credentialId: string): ReadBoundary | null | undefined {
    return this.boundaries.known(credentialId)
  }

  /** The credential's open run now (the origin of its control executions), or null. */
  liveRunOf(credentialId: string): Promise<string | null> {
    return liveRunOf(this.database.db, credentialId, this.now())
  }

  /** The read boundary as a page-cache key part ('' without one): bounded answers are cached apart. */
  readonly cacheVariant = (caller: { readonly credentialId: string }): string | Promise<string> => {
    const known = this.knownReadBoundary(caller.credentialId)
    return known !== undefined ? boundaryKey(known) : this.readBoundary(caller.credentialId).then(boundaryKey)
  }

  /** Abandons runs whose lease ran out; the timer calls it, tests too. */
  sweep(): Promise<number> {
    return this.timer.sweep()
  }

  /** Starts the lease timer (with the app). */
  start(): void {
    this.timer.start()
  }

  close(): Promise<void> {
    return this.timer.stop()
  }

  private async view(w: WorkflowRecord): Promise<WorkflowView> {
    return (await this.views([w]))[0]
  }

  private async views(rows: readonly WorkflowRecord[]): Promise<WorkflowView[]> {
    const latest = await latestRuns(this.database.db, rows.map((w) => w.id))
    const now = this.now()
    // Every axis of the registry is answered, also for a boundary stored before an axis existed.
    const full = (w: WorkflowRecord) => (w.boundary === null ? w : { ...w, boundary: fullBoundary(this.options.boundaryAxes, w.boundary) })
    return rows.map((w) => ({ ...workflowDefinition(full(w)), ...workflowState(w, latest.get(w.id) ?? null, now, this.options.overdueGraceMs) }))
  }
}

/** A read boundary as a page-cache key part: '' without one. */
function boundaryKey(b: ReadBoundary | null): string {
  return b === null ? '' : JSON.stringify(Object.entries(b.values).sort(([x], [y]) => x.localeCompare(y)))
}
