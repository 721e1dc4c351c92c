// What a workflow's schedule and runs say at one instant. The same rules are written in SQL
// in workflow-queries.ts (dueOnly, the overdue count); a test compares the two.
//
// A workflow waits for its `dueAt` occurrence. It is due when it is active, that time has
// come, and no run holds a live lease. A run whose lease ran out gives its occurrence back
// at once, also before the lease timer has marked it abandoned.
import { runView, type RunRecord, type WorkflowRecord, type WorkflowState, isOpen } from './workflow.js'

export interface DueState {
  readonly isDue: boolean
  readonly overdue: boolean
  /** The scheduled time the workflow waits for (or, while a run holds a live lease, the next one). */
  readonly dueSince: number | null
  /** The run holding a live lease, if any. */
  readonly liveRun: RunRecord | null
}

/** `latest` is the workflow's newest run (the open one, when a run is open). */
export function dueState(w: WorkflowRecord, latest: RunRecord | null, now: number, graceMs: number): DueState {
  const open = latest && isOpen(latest.status) ? latest : null
  const live = open !== null && (open.leaseExpiresMs ?? 0) > now ? open : null
  const expired = open !== null && live === null ? open : null
  const dueSince = expired ? Math.min(w.dueAt ?? Number.POSITIVE_INFINITY, expired.occurrenceMs) : w.dueAt
  const isDue = w.status === 'active' && live === null && dueSince !== null && dueSince <= now
  return { isDue, overdue: isDue && (dueSince as number) <= now - graceMs, dueSince, liveRun: live }
}

export function workflowState(w: WorkflowRecord, latest: RunRecord | null, now: number, graceMs: number): WorkflowState {
  const s = dueState(w, latest, now, graceMs)
  return {
    nextDueAt: w.status === 'active' && s.dueSince !== null ? new Date(s.dueSince).toISOString() : null,
    isDue: s.isDue,
    overdue: s.overdue,
    latestRun: latest ? runView(latest) : null,
  }
}
