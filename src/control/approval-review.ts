// What the people deciding an approval see of it (its page in the panel, where an MCP agent's
// input-required result sends them): what executing it would write now, record by record and
// field by field, from each step's own preview (for content the approval covers, such as a
// draft, the content as approved); whether that content changed since the request; and the
// policy deciding the action now with its limits beside this request's values, evaluated as
// the execution will evaluate them.
import { ApiError } from '../kernel/errors.js'
import type { ContentStore } from '../store/content-store.js'
import { actionByType } from './actions/action-registry.js'
import type { LimitResult } from './actions/control-action.js'
import type { Approval } from './approval-store.js'
import type { PreviewContext, RecordChange } from './change-preview.js'
import { reviewedStateOf, reviewedStateProblem } from './evaluate-action.js'
import { resolvePolicy, type Policy } from './policy.js'
import type { PolicyStore } from './policy-store.js'
import { LimitBreached } from './steps.js'

export interface ApprovalReview {
  /** `variants 12`, or null when the payload names nothing that exists yet. */
  readonly target: string | null
  /** What the execution would write if it ran now. */
  readonly records: readonly RecordChange[]
  /** Why the values now could not be read (the record is gone, the payload no longer resolves). */
  readonly problem: string | null
  /** Why the approval no longer covers the stored content it was requested for (a draft changed). */
  readonly stale: string | null
  /** The policy deciding the action now (null: an action this version does not know). */
  readonly policy: Policy | null
  /** Its limits and the action's own rules, for this request against the values now. */
  readonly limits: readonly LimitResult[]
}

/** An expected refusal (the payload no longer resolves, a rule fails) in words; anything else is not ours to word. */
function problemOf(err: unknown): string {
  // A limit a step checks against the values now (the limits beside say which).
  if (err instanceof LimitBreached) return err.message
  if (!(err instanceof ApiError)) throw err
  return err.details && err.details.length > 0 ? err.details.map((d) => `${d.param}: ${d.problem}`).join('; ') : err.message
}

export async function approvalReview(approval: Approval, deps: { readonly store: ContentStore; readonly policies: PolicyStore }): Promise<ApprovalReview> {
  const target = approval.target ? `${approval.target.type} ${approval.target.id}` : null
  const action = actionByType(approval.actionType)
  const none = { target, records: [], stale: null, limits: [] }
  if (!action) return { ...none, policy: null, problem: `${approval.actionType} is not an action of this version of Gatehouse` }
  const { policy } = resolvePolicy(await deps.policies.list(), approval.actionType, action.defaultRiskLevel)
  const read = deps.store.outsideTransaction()
  let resolved
  try {
    resolved = await action.resolve(approval.payload, read)
  } catch (err) {
    return { ...none, policy, problem: problemOf(err) }
  }
  const limits = action.limits(approval.payload, resolved.current, policy.limits)
  const stale = reviewedStateProblem(approval, reviewedStateOf(action, approval.payload, resolved.current))
  const ctx: PreviewContext = { read, payload: approval.payload, executor: approval.requester, limits: policy.limits, reviewed: approval.reviewedState?.content ?? null }
  const records: RecordChange[] = []
  let problem: string | null = null
  try {
    for (const step of action.steps) records.push(...(await step.preview(ctx)))
  } catch (err) {
    problem = problemOf(err)
  }
  return { target, records, problem, stale, policy, limits }
}
