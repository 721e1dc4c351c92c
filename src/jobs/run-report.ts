// POST /workflows/run-report: workers say what a run is doing. `started` claims the due
// occurrence under a lease (or renews the caller's own lease); `approval_requested` keeps
// the run open and renews its lease; `succeeded`, `failed` and `blocked` end it for good.
// Everything happens under the workflow's row lock (run-lease.ts), and every report,
// refused ones included, is audited in the same transaction.
import { ApiError, invalidMany, notFound, type ErrorDetail } from '../kernel/errors.js'
import { generateId } from '../auth/tokens.js'
import type { Db } from '../store/database.js'
import type { JobActor, JobContext } from './job-context.js'
import { abandonRun, lockWorkflow, openRunOf } from './run-lease.js'
import { checkMergedRun, checkReportMetadata } from './run-limits.js'
import { occurrencesOf } from './schedule.js'
import { runById } from './workflow-queries.js'
import { isOpen, runView, type OutcomeRef, type ReportStatus, type Run, type RunRecord, type WorkflowRecord } from './workflow.js'

export interface RunReport {
  readonly workflowId: string
  readonly status: ReportStatus
  readonly runId?: string
  readonly workerId?: string
  readonly summary?: string
  readonly approvalIds?: readonly string[]
  readonly outcomeRefs?: readonly OutcomeRef[]
  readonly metadata?: Readonly<Record<string, unknown>>
}

export interface Reporter {
  readonly credentialId: string
  readonly requestId: string | null
}

/** Who requested an approval (the control plane's approvals), or undefined for an unknown id. */
export type ApprovalRequester = (approvalId: string) => Promise<JobActor | undefined>

const iso = (ms: number) => new Date(ms).toISOString()
const OUTCOME = { started: 'success', approval_requested: 'success', succeeded: 'success', failed: 'failure', blocked: 'blocked' } as const

/** approvalIds must name approvals this credential requested: 400 naming each other id. */
export async function checkApprovalIds(ids: readonly string[], credentialId: string, requesterOf: ApprovalRequester): Promise<void> {
  const problems: ErrorDetail[] = []
  for (const [i, id] of ids.entries()) {
    const requester = await requesterOf(id)
    if (!requester || requester.type !== 'credential' || requester.id !== credentialId) {
      problems.push({ param: `approvalIds.${i}`, problem: `${id} is not an approval requested by this credential` })
    }
  }
  if (problems.length > 0) throw invalidMany(problems)
}

export async function reportRun(ctx: JobContext, by: Reporter, report: RunReport, requesterOf: ApprovalRequester): Promise<Run> {
  checkReportMetadata(report.metadata)
  if (report.approvalIds && report.approvalIds.length > 0) await checkApprovalIds(report.approvalIds, by.credentialId, requesterOf)
  const actor: JobActor = { type: 'credential', id: by.credentialId }
  const outcome = await ctx.database.db.transaction().execute(async (tx) => {
    const w = await lockWorkflow(ctx, tx, report.workflowId)
    // Another credential's workflow does not exist for this caller.
    if (!w || w.credentialId !== by.credentialId) throw notFound(`No workflow with id ${report.workflowId}`)
    const now = ctx.now()
    const result = report.status === 'started' ? await claim(ctx, tx, w, report, now) : await reportOn(ctx, tx, w, report, now)
    if ('refused' in result) {
      await ctx.audit(tx, {
        action: `run.${report.status}`, outcome: 'denied', actor, requestId: by.requestId,
        entity: result.runId ? { type: 'workflow_run', id: result.runId } : { type: 'workflow', id: w.id },
        summary: `Refused ${report.status} report on workflow ${w.name}: ${result.refused}`,
        metadata: { workflowId: w.id, workflowName: w.name, status: report.status, runId: report.runId ?? null, workerId: report.workerId ?? null },
      })
      return result
    }
    const run = result.run
    const action = result.renewed ? 'run.renewed' : `run.${report.status}`
    await ctx.audit(tx, {
      action, outcome: OUTCOME[report.status], actor, requestId: by.requestId, entity: { type: 'workflow_run', id: run.id },
      summary: `${result.renewed ? 'Renewed the lease of' : `Reported ${report.status} on`} run ${run.id} of workflow ${w.name} (occurrence ${run.occurrence})`,
      metadata: {
        workflowId: w.id, workflowName: w.name, status: run.status, occurrence: run.occurrence, workerId: run.workerId,
        leaseExpiresAt: run.leaseExpiresAt, summary: report.summary ?? null, approvalIds: report.approvalIds ?? [], outcomeRefs: report.outcomeRefs ?? [],
      },
    })
    return result
  })
  ctx.changed()
  if ('refused' in outcome) throw new ApiError('CONFLICT', outcome.refused)
  return runView(outcome.run)
}

type Outcome = { readonly run: RunRecord; readonly renewed: boolean } | { readonly refused: string; readonly runId?: string }

/** `started`: renew the caller's own live lease, or claim the due occurrence. */
async function claim(ctx: JobContext, tx: Db, w: WorkflowRecord, r: RunReport, now: number): Promise<Outcome> {
  // A lease that ran out gives its occurrence back before anything is decided.
  const stale = await openRunOf(tx, w.id)
  if (stale && (stale.leaseExpiresMs ?? 0) <= now) await abandonRun(ctx, tx, w, stale, now)
  const open = stale && (stale.leaseExpiresMs ?? 0) > now ? stale : undefined
  if (open) {
    if (r.runId === open.id && (r.workerId ?? null) === open.workerId) {
      await tx.updateTable('workflow_runs').set({ ...changes(open, r, now), status: 'started', lease_expires_at: now + ctx.leaseMs })
        .where('id', '=', open.id).execute()
      return { run: await reread(tx, open.id), renewed: true }
    }
    return { refused: `occurrence ${open.occurrence} of workflow ${w.name} is held by run ${open.id}${open.workerId ? ` (worker ${open.workerId})` : ''} until ${open.leaseExpiresAt ?? '?'}`, runId: open.id }
  }
  if (r.runId !== undefined) {
    const existing = await runById(tx, r.runId)
    if (existing) {
      return existing.workflowId === w.id
        ? { refused: `run ${existing.id} is already ${existing.status}; a run that ended cannot be started again`, runId: existing.id }
        : { refused: `runId ${r.runId} is already used by another run; choose a new one or leave runId out` }
    }
  }
  if (w.status === 'paused') return { refused: `workflow ${w.name} is paused; resume it before starting a run` }
  // The workflow may have changed above (an abandoned run gave its occurrence back).
  const current = (await lockWorkflow(ctx, tx, w.id)) as WorkflowRecord
  if (current.dueAt === null || current.dueAt > now) {
    return { refused: `workflow ${w.name} is not due${current.dueAt === null ? ' and has no further occurrence' : `; next due at ${iso(current.dueAt)}`}` }
  }
  // The due occurrence is the latest scheduled time at or before now: missed earlier ones are not run one by one.
  const schedule = occurrencesOf(current.schedule)
  const occurrence = Math.max(current.dueAt, schedule.atOrBefore(now) ?? current.dueAt)
  const id = r.runId ?? generateId('run')
  const inserted = await tx.insertInto('workflow_runs').values({
    id, workflow_id: w.id, occurrence, status: 'started', worker_id: r.workerId ?? null, summary: r.summary ?? null,
    approval_ids: JSON.stringify(r.approvalIds ?? []), outcome_refs: JSON.stringify(r.outcomeRefs ?? []), metadata: JSON.stringify(r.metadata ?? {}),
    started_at: now, updated_at: now, finished_at: null, lease_expires_at: now + ctx.leaseMs,
  }).onConflict((oc) => oc.doNothing()).executeTakeFirst()
  // The partial unique indexes (one live run per occurrence, one open run per workflow) are
  // the last line: with the row lock this only happens if something bypassed it.
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) return { refused: `occurrence ${iso(occurrence)} of workflow ${w.name} is already claimed` }
  await tx.updateTable('workflows').set({ due_at: schedule.after(now) }).where('id', '=', w.id).execute()
  return { run: await reread(tx, id), renewed: false }
}

/** `approval_requested`, `succeeded`, `failed`, `blocked`: a report on the caller's open run. */
async function reportOn(ctx: JobContext, tx: Db, w: WorkflowRecord, r: RunReport, now: number): Promise<Outcome> {
  const run = r.runId !== undefined ? await runById(tx, r.runId) : await openRunOf(tx, w.id)
  if (r.runId !== undefined && (!run || run.workflowId !== w.id)) throw notFound(`No run ${r.runId} of workflow ${w.id}`)
  if (!run) return { refused: `workflow ${w.name} has no open run; report started first` }
  if (!isOpen(run.status)) return { refused: `run ${run.id} is already ${run.status}; a run that ended cannot be reported on again`, runId: run.id }
  if ((r.workerId ?? null) !== run.workerId) {
    return { refused: `run ${run.id} is held by ${run.workerId ? `worker ${run.workerId}` : 'a worker without workerId'}; only its holder reports on it`, runId: run.id }
  }
  if ((run.leaseExpiresMs ?? 0) <= now) {
    await abandonRun(ctx, tx, w, run, now)
    return { refused: `the lease of run ${run.id} ran out at ${run.leaseExpiresAt ?? '?'}; the run is abandoned and occurrence ${run.occurrence} is due again`, runId: run.id }
  }
  const terminal = r.status !== 'approval_requested'
  await tx.updateTable('workflow_runs').set({
    ...changes(run, r, now), status: r.status,
    finished_at: terminal ? now : null,
    // An open run waiting for approval keeps (and renews) its lease; an ended run holds nothing.
    lease_expires_at: terminal ? null : now + ctx.leaseMs,
  }).where('id', '=', run.id).execute()
  return { run: await reread(tx, run.id), renewed: false }
}

/** Columns a report changes: the latest summary, metadata merged, approvals and outcomes added. */
function changes(run: RunRecord, r: RunReport, now: number): Record<string, unknown> {
  const refs = [...run.outcomeRefs]
  for (const ref of r.outcomeRefs ?? []) if (!refs.some((x) => x.type === ref.type && x.id === ref.id)) refs.push(ref)
  const metadata = { ...run.metadata, ...(r.metadata ?? {}) }
  checkMergedRun(run.id, metadata, refs.length)
  return {
    summary: r.summary ?? run.summary,
    approval_ids: JSON.stringify([...new Set([...run.approvalIds, ...(r.approvalIds ?? [])])]),
    outcome_refs: JSON.stringify(refs),
    metadata: JSON.stringify(metadata),
    updated_at: now,
  }
}

async function reread(tx: Db, id: string): Promise<RunRecord> {
  return (await runById(tx, id)) as RunRecord
}
