// Reads of the job runtime's tables. The due and overdue conditions are dueState's rules
// (workflow-state.ts) in SQL, so `dueOnly` pages and the overdue gauge are filtered in
// the database.
import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely'
import type { Db } from '../store/database.js'
import { OPEN_RUN_STATUSES, runFromRow, workflowFromRow, type RunRecord, type WorkflowRecord, type WorkflowStatus } from './workflow.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Eb = ExpressionBuilder<any, any>

/** An open run of workflow `w` whose lease is live (`live`) or has run out (`!live`). */
function openRun(eb: Eb, now: number, live: boolean, occurrenceAtOrBefore?: number): Expression<SqlBool> {
  let q = eb.selectFrom('workflow_runs as r').select(sql.lit(1).as('one'))
    .whereRef('r.workflow_id', '=', 'w.id').where('r.status', 'in', [...OPEN_RUN_STATUSES])
    .where('r.lease_expires_at', live ? '>' : '<=', now)
  if (occurrenceAtOrBefore !== undefined) q = q.where('r.occurrence', '<=', occurrenceAtOrBefore)
  return eb.exists(q)
}

/** Due at `now`, and (with `cutoff`) due since `cutoff` or earlier: dueState's rules. */
function dueCondition(eb: Eb, now: number, cutoff = now): Expression<SqlBool> {
  return eb.and([
    eb('w.status', '=', 'active'),
    eb.not(openRun(eb, now, true)),
    eb.or([eb('w.due_at', '<=', cutoff), openRun(eb, now, false, cutoff)]),
  ])
}

export interface WorkflowQuery {
  readonly now: number
  readonly credentialId?: string
  readonly status?: WorkflowStatus
  readonly templateKey?: string
  readonly dueOnly?: boolean
  /** Keyset position: the list is ordered by creation, then id. */
  readonly after?: { readonly createdAt: number; readonly id: string }
  readonly limit: number
}

export async function queryWorkflows(db: Db, q: WorkflowQuery): Promise<WorkflowRecord[]> {
  let query = db.selectFrom('workflows as w').selectAll('w')
  if (q.credentialId !== undefined) query = query.where('w.credential_id', '=', q.credentialId)
  if (q.status !== undefined) query = query.where('w.status', '=', q.status)
  if (q.templateKey !== undefined) query = query.where('w.template_key', '=', q.templateKey)
  if (q.dueOnly) query = query.where((eb) => dueCondition(eb, q.now))
  const after = q.after
  if (after) {
    query = query.where((eb) => eb.or([
      eb('w.created_at', '>', after.createdAt),
      eb.and([eb('w.created_at', '=', after.createdAt), eb('w.id', '>', after.id)]),
    ]))
  }
  const rows = await query.orderBy('w.created_at').orderBy('w.id').limit(q.limit).execute()
  return rows.map(workflowFromRow)
}

export async function workflowById(db: Db, id: string): Promise<WorkflowRecord | undefined> {
  const row = await db.selectFrom('workflows').selectAll().where('id', '=', id).executeTakeFirst()
  return row ? workflowFromRow(row) : undefined
}

/** The newest run of each workflow (the open one, when one is open). */
export async function latestRuns(db: Db, workflowIds: readonly string[]): Promise<Map<string, RunRecord>> {
  const out = new Map<string, RunRecord>()
  if (workflowIds.length === 0) return out
  const rows = await db.selectFrom('workflow_runs as r').selectAll('r')
    .where('r.workflow_id', 'in', [...workflowIds])
    .where('r.id', '=', (eb: Eb) => eb.selectFrom('workflow_runs as r2').select('r2.id').whereRef('r2.workflow_id', '=', 'r.workflow_id')
      .orderBy('r2.started_at', 'desc').orderBy('r2.id', 'desc').limit(1))
    .execute()
  for (const row of rows) out.set(row.workflow_id as string, runFromRow(row))
  return out
}

export async function runById(db: Db, id: string): Promise<RunRecord | undefined> {
  const row = await db.selectFrom('workflow_runs').selectAll().where('id', '=', id).executeTakeFirst()
  return row ? runFromRow(row) : undefined
}

/** A workflow's runs, newest first, after a keyset position. */
export async function runsOf(db: Db, workflowId: string, limit: number, before?: { startedAt: number; id: string }): Promise<RunRecord[]> {
  let query = db.selectFrom('workflow_runs').selectAll().where('workflow_id', '=', workflowId)
  if (before) {
    query = query.where((eb) => eb.or([
      eb('started_at', '<', before.startedAt),
      eb.and([eb('started_at', '=', before.startedAt), eb('id', '<', before.id)]),
    ]))
  }
  const rows = await query.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(limit).execute()
  return rows.map(runFromRow)
}

/** Active workflows due since `now - graceMs` or earlier with no run started: the overdue ones. */
export async function overdueWorkflows(db: Db, now: number, graceMs: number, limit = 50): Promise<{ count: number; sample: { id: string; name: string }[] }> {
  const where = (eb: Eb) => dueCondition(eb, now, now - graceMs)
  const counted = await db.selectFrom('workflows as w').select((eb) => eb.fn.countAll().as('n')).where(where).executeTakeFirst()
  const sample = limit === 0 ? [] : await db.selectFrom('workflows as w').select(['w.id', 'w.name']).where(where).orderBy('w.due_at').orderBy('w.id').limit(limit).execute()
  return { count: Number(counted?.n ?? 0), sample: sample.map((r) => ({ id: r.id as string, name: r.name as string })) }
}

/** Open runs whose lease ran out (the lease timer's work), oldest lease first. */
export async function expiredRuns(db: Db, now: number, limit: number): Promise<RunRecord[]> {
  const rows = await db.selectFrom('workflow_runs').selectAll().where('status', 'in', [...OPEN_RUN_STATUSES])
    .where('lease_expires_at', '<=', now).orderBy('lease_expires_at').limit(limit).execute()
  return rows.map(runFromRow)
}
