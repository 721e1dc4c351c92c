// Leases: a run holds its occurrence until `lease_expires_at`. Every change to a workflow's
// runs first locks the workflow's row (PostgreSQL `FOR UPDATE`; SQLite's write transactions
// hold the database lock), so claims, reports and the lease timer of several processes take
// their turns per workflow, always in the order workflow row → run rows → audit head.
// Abandoning is a conditional update on the lease, so a renewal that committed first wins.
import { sql } from 'kysely'
import type { Db } from '../store/database.js'
import { LEASE_TIMER_ACTOR, type JobActor, type JobContext } from './job-context.js'
import { expiredRuns } from './workflow-queries.js'
import { OPEN_RUN_STATUSES, runFromRow, workflowFromRow, type RunRecord, type WorkflowRecord } from './workflow.js'

/** The workflow's row, locked for this transaction; with `skipLocked`, undefined when another holds it. */
export async function lockWorkflow(ctx: JobContext, tx: Db, id: string, opts: { skipLocked?: boolean } = {}): Promise<WorkflowRecord | undefined> {
  let query = tx.selectFrom('workflows').selectAll().where('id', '=', id)
  if (ctx.database.adapter.rowLocks) query = opts.skipLocked ? query.forUpdate().skipLocked() : query.forUpdate()
  const row = await query.executeTakeFirst()
  return row ? workflowFromRow(row) : undefined
}

/**
 * Marks an open run whose lease ran out as abandoned and gives its occurrence back (the
 * workflow is due for it again), with an audit record. False when the run was renewed,
 * reported or abandoned meanwhile. The caller holds the workflow's lock.
 */
export async function abandonRun(ctx: JobContext, tx: Db, w: WorkflowRecord, run: RunRecord, now: number, actor: JobActor = LEASE_TIMER_ACTOR): Promise<boolean> {
  const res = await tx.updateTable('workflow_runs').set({ status: 'abandoned', updated_at: now, finished_at: now })
    .where('id', '=', run.id).where('status', 'in', [...OPEN_RUN_STATUSES]).where('lease_expires_at', '<=', now)
    .executeTakeFirst()
  if (Number(res.numUpdatedRows) !== 1) return false
  await tx.updateTable('workflows')
    .set({ due_at: sql`CASE WHEN due_at IS NULL OR due_at > ${run.occurrenceMs} THEN ${run.occurrenceMs} ELSE due_at END` })
    .where('id', '=', w.id).execute()
  await ctx.audit(tx, {
    action: 'run.abandoned', outcome: 'failure', actor, requestId: null, entity: { type: 'workflow_run', id: run.id },
    summary: `Run ${run.id} of workflow ${w.name} abandoned: its lease ran out at ${run.leaseExpiresAt ?? '?'}; occurrence ${run.occurrence} is due again`,
    metadata: { workflowId: w.id, workflowName: w.name, occurrence: run.occurrence, workerId: run.workerId, leaseExpiresAt: run.leaseExpiresAt, previousStatus: run.status },
  })
  ctx.changed()
  return true
}

/** The workflow's open run (live or with its lease run out), if any. */
export async function openRunOf(tx: Db, workflowId: string): Promise<RunRecord | undefined> {
  const row = await tx.selectFrom('workflow_runs').selectAll().where('workflow_id', '=', workflowId)
    .where('status', 'in', [...OPEN_RUN_STATUSES]).executeTakeFirst()
  return row ? runFromRow(row) : undefined
}

/**
 * The lease timer's sweep: abandons every open run whose lease ran out. Each run in a
 * transaction of its own; a workflow another process holds locked is passed over (it is
 * being claimed or reported on, which abandons expired runs itself, or swept by that
 * process). Returns how many runs were abandoned.
 */
export async function abandonExpired(ctx: JobContext, limit = 200): Promise<number> {
  const now = ctx.now()
  let abandoned = 0
  for (const run of await expiredRuns(ctx.database.db, now, limit)) {
    const done = await ctx.database.db.transaction().execute(async (tx) => {
      const w = await lockWorkflow(ctx, tx, run.workflowId, { skipLocked: true })
      return w ? abandonRun(ctx, tx, w, run, now) : false
    })
    if (done) abandoned++
  }
  return abandoned
}
