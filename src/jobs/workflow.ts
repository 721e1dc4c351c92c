// The job runtime's records: workflow definitions and their runs, as stored and as the
// API, CLI and panel show them. Rows hold integer milliseconds and JSON text; views hold
// ISO strings and objects.
import type { Schedule } from './schedule.js'
import type { BoundaryValues } from '../kernel/caller.js'

export const WORKFLOW_STATUSES = ['active', 'paused'] as const
export type WorkflowStatus = typeof WORKFLOW_STATUSES[number]

export const RUN_REPORT_STATUSES = ['started', 'succeeded', 'failed', 'blocked', 'approval_requested'] as const
export type ReportStatus = typeof RUN_REPORT_STATUSES[number]

/** `abandoned` is set by the lease timer, never reported. */
export const RUN_STATUSES = [...RUN_REPORT_STATUSES, 'abandoned'] as const
export type RunStatus = typeof RUN_STATUSES[number]

/** Runs that hold their occurrence under a lease. */
export const OPEN_RUN_STATUSES = ['started', 'approval_requested'] as const
/** Runs that can never be reported on again. */
export const TERMINAL_RUN_STATUSES = ['succeeded', 'failed', 'blocked', 'abandoned'] as const

export const isOpen = (status: RunStatus): boolean => (OPEN_RUN_STATUSES as readonly string[]).includes(status)

/** Axis name → values, every axis of the registry when written (`{ sections: [], entryIds: [12], productIds: [] }`). */
export type WorkflowBoundary = BoundaryValues

export interface OutcomeRef {
  readonly type: string
  readonly id: string
}

export interface Workflow {
  readonly id: string
  readonly name: string
  readonly templateKey: string
  readonly credentialId: string
  readonly schedule: Schedule
  readonly boundary: WorkflowBoundary | null
  readonly config: Record<string, unknown>
  readonly status: WorkflowStatus
  readonly createdAt: string
  readonly updatedAt: string
}

/** What a workflow's schedule and runs say now (computed by workflowState). */
export interface WorkflowState {
  /** When the workflow became or becomes due: the scheduled time it waits for; null while paused. */
  readonly nextDueAt: string | null
  readonly isDue: boolean
  /** Due for longer than the grace period without a run started. */
  readonly overdue: boolean
  readonly latestRun: Run | null
}

export type WorkflowView = Workflow & WorkflowState

export interface Run {
  readonly id: string
  readonly workflowId: string
  /** The scheduled time this run claimed. */
  readonly occurrence: string
  readonly status: RunStatus
  readonly workerId: string | null
  readonly summary: string | null
  readonly approvalIds: readonly string[]
  readonly outcomeRefs: readonly OutcomeRef[]
  readonly metadata: Record<string, unknown>
  readonly startedAt: string
  readonly updatedAt: string
  readonly finishedAt: string | null
  /** Until when the run holds its occurrence; null once it ended. */
  readonly leaseExpiresAt: string | null
}

/** The stored row of a workflow, with the scheduling state the views derive from. */
export interface WorkflowRecord extends Workflow {
  /** Occurrences before this instant never count (creation, resume, schedule change). */
  readonly anchorAt: number
  /** The first scheduled occurrence still waiting to be claimed, or null when none comes. */
  readonly dueAt: number | null
}

/** A run row with its times as numbers (lease comparisons happen on these). */
export interface RunRecord extends Run {
  readonly occurrenceMs: number
  readonly leaseExpiresMs: number | null
}

type Row = Record<string, unknown>

const iso = (ms: unknown) => new Date(Number(ms)).toISOString()
const isoOrNull = (ms: unknown) => (ms === null || ms === undefined ? null : iso(ms))
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v))

export function workflowFromRow(row: Row): WorkflowRecord {
  return {
    id: row.id as string,
    name: row.name as string,
    templateKey: row.template_key as string,
    credentialId: row.credential_id as string,
    schedule: { cron: row.cron as string, timezone: row.timezone as string },
    boundary: row.boundary === null || row.boundary === undefined ? null : JSON.parse(row.boundary as string) as WorkflowBoundary,
    config: JSON.parse(row.config as string) as Record<string, unknown>,
    status: row.status as WorkflowStatus,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    anchorAt: Number(row.anchor_at),
    dueAt: num(row.due_at),
  }
}

export function runFromRow(row: Row): RunRecord {
  return {
    id: row.id as string,
    workflowId: row.workflow_id as string,
    occurrence: iso(row.occurrence),
    status: row.status as RunStatus,
    workerId: (row.worker_id as string | null) ?? null,
    summary: (row.summary as string | null) ?? null,
    approvalIds: JSON.parse(row.approval_ids as string) as string[],
    outcomeRefs: JSON.parse(row.outcome_refs as string) as OutcomeRef[],
    metadata: JSON.parse(row.metadata as string) as Record<string, unknown>,
    startedAt: iso(row.started_at),
    updatedAt: iso(row.updated_at),
    finishedAt: isoOrNull(row.finished_at),
    leaseExpiresAt: isoOrNull(row.lease_expires_at),
    occurrenceMs: Number(row.occurrence),
    leaseExpiresMs: num(row.lease_expires_at),
  }
}

/** The public view of a run (without the numeric copies). */
export function runView(r: RunRecord): Run {
  const { occurrenceMs: _o, leaseExpiresMs: _l, ...run } = r
  return run
}

/** The public definition of a workflow (without the scheduling columns). */
export function workflowDefinition(w: WorkflowRecord): Workflow {
  const { anchorAt: _a, dueAt: _d, ...definition } = w
  return definition
}
