// Operators' changes to workflow definitions (admin API, CLI and panel call these): create,
// update, pause, resume, delete. Input is checked against the admin API's body schemas here,
// so every surface accepts exactly the same thing, then the schedule (cron and zone), the
// credential and the boundary. Each change is audited in its own transaction.
import type { TObject } from '@sinclair/typebox'
import { invalidMany, notFound, type ErrorDetail } from '../kernel/errors.js'
import { generateId } from '../auth/tokens.js'
import { flaggedBy, schemaProblems } from '../store/validation.js'
import type { Db } from '../store/database.js'
import type { JobActor, JobContext } from './job-context.js'
import { workflowSchemas } from './job-schemas.js'
import { axesInWords, boundarySize, fullBoundary, type BoundaryAxis } from '../resources/boundary-axes.js'
import type { BoundaryValues } from '../kernel/caller.js'
import { lockWorkflow } from './run-lease.js'
import { workflowById } from './workflow-queries.js'
import { occurrencesOf, scheduleProblems, type Schedule } from './schedule.js'
import { workflowDefinition, type WorkflowBoundary, type WorkflowRecord, type WorkflowStatus } from './workflow.js'

export interface WorkflowInput {
  readonly name: string
  readonly templateKey: string
  readonly credentialId: string
  readonly schedule: Schedule
  readonly boundary?: BoundaryValues | null
  readonly config?: Record<string, unknown>
  readonly status?: WorkflowStatus
}

export type WorkflowPatch = Partial<Omit<WorkflowInput, 'status'>>

/** The scopes of the credential (managed or configured) an id names, or null when none does. */
export type CredentialCheck = (id: string) => Promise<readonly string[] | null>

/** What a workflow's worker calls as its credential: GET /workflows and POST /workflows/run-report. */
export const WORKER_SCOPES = ['jobs:read', 'jobs:report'] as const

/** Stored with every axis (empty ones too), as the answers show it. */
function boundaryOf(axes: readonly BoundaryAxis[], b: BoundaryValues | null | undefined): WorkflowBoundary | null {
  return b ? fullBoundary(axes, b) : null
}

async function checkProblems(input: Partial<WorkflowInput>, credentialExists: CredentialCheck, axes: readonly BoundaryAxis[]): Promise<ErrorDetail[]> {
  const problems: ErrorDetail[] = []
  if (input.schedule) problems.push(...scheduleProblems(input.schedule))
  if (input.credentialId !== undefined) {
    const scopes = await credentialExists(input.credentialId)
    // A credential without these could never see or report its workflow's runs.
    const missing = scopes === null ? [] : WORKER_SCOPES.filter((s) => !scopes.includes(s))
    if (scopes === null) problems.push({ param: 'credentialId', problem: `no credential with id ${input.credentialId}` })
    else if (missing.length > 0) problems.push({ param: 'credentialId', problem: `credential ${input.credentialId} lacks ${missing.join(' and ')}, which the workflow's worker needs to list and report its runs; grant ${missing.join(', ')} or choose another credential` })
  }
  const b = input.boundary
  if (b && boundarySize(b) === 0) {
    problems.push({ param: 'boundary', problem: `name at least one ${axesInWords(axes)}, or leave the boundary out (null)` })
  }
  return problems
}

/**
 * A body checked by its schema and by the rules above, every bad member named at once: the
 * rules run on the members the schema passed (a badly typed `name` used to hide an unknown
 * time zone, a credential without the worker's scopes and an empty boundary).
 */
async function validated<T extends Partial<WorkflowInput>>(schema: TObject, raw: unknown, credentialExists: CredentialCheck, axes: readonly BoundaryAxis[]): Promise<T> {
  const problems = await inputProblems(schema, raw, credentialExists, axes)
  if (problems.length > 0) throw invalidMany(problems)
  return raw as T
}

/** Every problem createWorkflow would name for `raw`, without creating (a form adds its own fields' to them). */
export function createWorkflowProblems(ctx: JobContext, raw: unknown, credentialExists: CredentialCheck): Promise<ErrorDetail[]> {
  return inputProblems(workflowSchemas(ctx.boundaryAxes).create, raw, credentialExists, ctx.boundaryAxes)
}

/** validated's problems, without throwing. */
async function inputProblems(schema: TObject, raw: unknown, credentialExists: CredentialCheck, axes: readonly BoundaryAxis[]): Promise<ErrorDetail[]> {
  const typed = schemaProblems(schema, raw)
  if (typed.some((d) => d.param === '(body)')) return typed
  const flagged = flaggedBy(typed)
  const body = raw as Record<string, unknown>
  const schedule = body.schedule as { cron?: unknown; timezone?: unknown } | undefined
  const usable: Partial<WorkflowInput> = {
    ...(typeof schedule?.cron === 'string' && typeof schedule.timezone === 'string' ? { schedule: { cron: schedule.cron, timezone: schedule.timezone } } : {}),
    ...(typeof body.credentialId === 'string' && !flagged('credentialId') ? { credentialId: body.credentialId } : {}),
    ...(body.boundary !== undefined && !flagged('boundary') ? { boundary: body.boundary as WorkflowInput['boundary'] } : {}),
  }
  return [...typed, ...(await checkProblems(usable, credentialExists, axes)).filter((d) => !flagged(d.param))]
}

const firstAtOrAfter = (schedule: Schedule, t: number) => occurrencesOf(schedule).after(t - 1)

export async function createWorkflow(ctx: JobContext, raw: unknown, actor: JobActor, credentialExists: CredentialCheck): Promise<WorkflowRecord> {
  const input = await validated<WorkflowInput>(workflowSchemas(ctx.boundaryAxes).create, raw, credentialExists, ctx.boundaryAxes)
  const now = ctx.now()
  const id = generateId('wf')
  const boundary = boundaryOf(ctx.boundaryAxes, input.boundary)
  await ctx.database.db.transaction().execute(async (tx) => {
    await tx.insertInto('workflows').values({
      id, name: input.name, template_key: input.templateKey, credential_id: input.credentialId, cron: input.schedule.cron.trim(),
      timezone: input.schedule.timezone, boundary: boundary ? JSON.stringify(boundary) : null, config: JSON.stringify(input.config ?? {}),
      status: input.status ?? 'active', anchor_at: now, due_at: firstAtOrAfter(input.schedule, now), created_at: now, updated_at: now,
    }).execute()
    const w = await reread(tx, id)
    await ctx.audit(tx, { action: 'workflow.create', outcome: 'success', actor: { type: actor.type, id: actor.id }, requestId: actor.requestId ?? null, entity: { type: 'workflow', id }, summary: `Created workflow ${w.name} (${w.templateKey}, runs as ${w.credentialId})`, metadata: auditView(w) })
  })
  ctx.changed()
  return reread(ctx.database.db, id)
}

export async function updateWorkflow(ctx: JobContext, id: string, raw: unknown, actor: JobActor, credentialExists: CredentialCheck): Promise<WorkflowRecord> {
  const patch = await validated<WorkflowPatch>(workflowSchemas(ctx.boundaryAxes).update, raw, credentialExists, ctx.boundaryAxes)
  return change(ctx, id, actor, 'workflow.update', (w, now) => {
    const set: Record<string, unknown> = { updated_at: now }
    if (patch.name !== undefined) set.name = patch.name
    if (patch.templateKey !== undefined) set.template_key = patch.templateKey
    if (patch.credentialId !== undefined) set.credential_id = patch.credentialId
    if (patch.config !== undefined) set.config = JSON.stringify(patch.config)
    if (patch.boundary !== undefined) {
      const b = boundaryOf(ctx.boundaryAxes, patch.boundary)
      set.boundary = b ? JSON.stringify(b) : null
    }
    const s = patch.schedule
    if (s !== undefined && (s.cron.trim() !== w.schedule.cron || s.timezone !== w.schedule.timezone)) {
      // A new schedule starts from now: occurrences of the old one are not owed.
      Object.assign(set, { cron: s.cron.trim(), timezone: s.timezone, anchor_at: now, due_at: firstAtOrAfter(s, now) })
    }
    return { set, changed: Object.keys(patch) }
  })
}

/**
 * Pausing stops new runs (an open run may still report); resuming starts the schedule
 * again from now, so occurrences that passed while paused are not owed.
 */
export function setWorkflowStatus(ctx: JobContext, id: string, status: WorkflowStatus, actor: JobActor): Promise<WorkflowRecord> {
  return change(ctx, id, actor, status === 'paused' ? 'workflow.pause' : 'workflow.resume', (w, now) => {
    if (w.status === status) return { set: null, changed: [] }
    return { set: status === 'active' ? { status, updated_at: now, anchor_at: now, due_at: firstAtOrAfter(w.schedule, now) } : { status, updated_at: now }, changed: ['status'] }
  })
}

/** Deletes a workflow and its run history (the audit log keeps the record of both). */
export async function deleteWorkflow(ctx: JobContext, id: string, actor: JobActor): Promise<void> {
  await ctx.database.db.transaction().execute(async (tx) => {
    const w = await lockWorkflow(ctx, tx, id)
    if (!w) throw notFound(`No workflow with id ${id}`)
    await tx.deleteFrom('workflow_runs').where('workflow_id', '=', id).execute()
    await tx.deleteFrom('workflows').where('id', '=', id).execute()
    await ctx.audit(tx, { action: 'workflow.delete', outcome: 'success', actor: { type: actor.type, id: actor.id }, requestId: actor.requestId ?? null, entity: { type: 'workflow', id }, summary: `Deleted workflow ${w.name}`, metadata: auditView(w) })
  })
  ctx.changed()
}

type Change = (w: WorkflowRecord, now: number) => { set: Record<string, unknown> | null; changed: readonly string[] }

async function change(ctx: JobContext, id: string, actor: JobActor, action: string, decide: Change): Promise<WorkflowRecord> {
  await ctx.database.db.transaction().execute(async (tx) => {
    const w = await lockWorkflow(ctx, tx, id)
    if (!w) throw notFound(`No workflow with id ${id}`)
    const { set, changed } = decide(w, ctx.now())
    if (!set) return
    await tx.updateTable('workflows').set(set).where('id', '=', id).execute()
    const after = await reread(tx, id)
    const verb = action.slice('workflow.'.length)
    await ctx.audit(tx, { action, outcome: 'success', actor: { type: actor.type, id: actor.id }, requestId: actor.requestId ?? null, entity: { type: 'workflow', id }, summary: `${verb[0].toUpperCase()}${verb.slice(1)}d workflow ${after.name}`, metadata: { ...auditView(after), changed } })
  })
  ctx.changed()
  return reread(ctx.database.db, id)
}

async function reread(db: Db, id: string): Promise<WorkflowRecord> {
  const w = await workflowById(db, id)
  if (!w) throw notFound(`No workflow with id ${id}`)
  return w
}

/** A definition as audit records carry it: config only by its keys, in case it holds a secret of the worker's. */
function auditView(w: WorkflowRecord): Record<string, unknown> {
  const { createdAt: _c, updatedAt: _u, config, ...rest } = workflowDefinition(w)
  return { ...rest, configKeys: Object.keys(config) }
}
