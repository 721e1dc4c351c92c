// What the job runtime's operations share: the database, lease and grace lengths, the clock
// (injectable, so tests move time instead of waiting) and the audit hook, through which job
// events reach the control plane's audit log inside the transaction of what they record (a
// callback, so this part does not depend on the control plane).
import type { Database, Db } from '../store/database.js'
import type { BoundaryAxis } from '../resources/boundary-axes.js'

export interface JobActor {
  /** `credential`: a machine client; `admin`: the admin token or a panel admin; `cli`: an operator; `system`: timers. */
  readonly type: 'credential' | 'admin' | 'cli' | 'system'
  readonly id: string
  /** The HTTP request that asked, when one did (its audit record names it). */
  readonly requestId?: string
}

export const LEASE_TIMER_ACTOR: JobActor = { type: 'system', id: 'gatehouse' }

export interface JobEvent {
  /** `workflow.create`, `run.started`, `run.renewed`, `run.succeeded`, `run.abandoned`, … */
  readonly action: string
  readonly outcome: 'success' | 'failure' | 'blocked' | 'denied'
  readonly actor: JobActor
  readonly requestId: string | null
  readonly entity: { readonly type: 'workflow' | 'workflow_run'; readonly id: string }
  readonly summary: string
  readonly metadata: Readonly<Record<string, unknown>>
}

/** Records a job event inside the transaction `tx` (category `job` in the audit log). */
export type JobAuditHook = (tx: Db, event: JobEvent) => Promise<void>

export interface JobContext {
  readonly database: Database
  /** How long a `started` (or renewed) run holds its occurrence. */
  readonly leaseMs: number
  /** How long a workflow may stay due without a run before it counts as overdue. */
  readonly overdueGraceMs: number
  readonly audit: JobAuditHook
  /** The registry's boundary axes: what a workflow's boundary may list. */
  readonly boundaryAxes: readonly BoundaryAxis[]
  now(): number
  /** Called after any change to runs or workflows (drops cached read boundaries). */
  changed(): void
}
