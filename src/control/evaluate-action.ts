// What executing an action would do now: the one evaluation behind both simulation and
// execution, so a simulation cannot disagree with the execution that follows it. It reads
// and never writes.
import { ApiError, invalid, type ErrorDetail } from '../kernel/errors.js'
import type { Caller } from '../kernel/caller.js'
import { schemaProblems } from '../store/validation.js'
import type { ContentStore } from '../store/content-store.js'
import type { Database } from '../store/database.js'
import { actionByType, actionTypes } from './actions/action-registry.js'
import type { ControlAction, LimitResult, Resolved } from './actions/control-action.js'
import { checkBoundaries, type BoundaryCheck } from './boundaries.js'
import { payloadDigest } from './canonical-json.js'
import { resolvePolicy, type EffectivePolicy } from './policy.js'
import type { PolicyStore } from './policy-store.js'
import type { Approval, ApprovalStore, BoundState } from './approval-store.js'

export const EXECUTE_SCOPE = 'control:actions:execute'
export const REQUEST_SCOPE = 'control:approvals:request'

export interface ApprovalState {
  readonly required: boolean
  readonly approvalId: string | null
  /** The approval as stored, when approvalId names one of the caller's. */
  readonly record: Approval | null
  readonly approvalsGiven: number
  readonly approvalsRequired: number
  readonly payloadMatches: boolean | null
  /** Whether the stored content the approval covers (a draft) is still as approved; null when it covers none. */
  readonly reviewedStateMatches: boolean | null
  readonly usable: boolean
}

export interface Evaluation {
  readonly action: ControlAction
  readonly payloadDigest: string
  readonly payloadErrors: readonly ErrorDetail[]
  readonly resolved: Resolved | null
  readonly effective: EffectivePolicy
  readonly missingScopes: readonly string[]
  readonly limits: readonly LimitResult[]
  readonly boundary: BoundaryCheck
  readonly approval: ApprovalState
  /** Why execute would record a blocked execution (empty when it would run). */
  readonly reasons: readonly string[]
  readonly decision: 'execute' | 'blocked' | 'invalid' | 'forbidden'
}

/** The action for `actionType`, or a 400 naming actionType. */
export function actionOrThrow(actionType: string): ControlAction {
  const action = actionByType(actionType)
  if (!action) throw invalid('actionType', `unknown action; known: ${actionTypes().join(', ')}`)
  return action
}

/** Payload problems: its schema first, then whether what it names exists. */
export async function resolvePayload(action: ControlAction, payload: Record<string, unknown>, store: ContentStore): Promise<{ errors: ErrorDetail[]; resolved: Resolved | null }> {
  const errors = schemaProblems(action.payload, payload, 'payload.')
  if (errors.length > 0) return { errors, resolved: null }
  try {
    return { errors: [], resolved: await action.resolve(payload, store.outsideTransaction()) }
  } catch (err) {
    if (err instanceof ApiError && err.code === 'INVALID_REQUEST' && err.details) return { errors: [...err.details], resolved: null }
    throw err
  }
}

/** The stored content an approval of this action would cover now, with its digest; null when the payload is all. */
export function reviewedStateOf(action: ControlAction, payload: Record<string, unknown>, current: Resolved['current']): BoundState | null {
  const state = action.reviewedState?.(payload, current)
  return state ? { ...state, digest: payloadDigest(state.content) } : null
}

/**
 * Why an approval no longer covers the stored content the action would apply (the draft was
 * updated after the approval was requested), or null while it still does.
 */
export function reviewedStateProblem(approval: Approval, now: BoundState | null): string | null {
  const then = approval.reviewedState
  if (then === null || (now !== null && now.digest === then.digest)) return null
  return `approval ${approval.id} covers ${then.subject} as it was when approval was requested (digest ${then.digest}); ${then.subject} has changed since (digest ${now?.digest ?? 'none'}): request a new approval`
}

export interface EvaluateInput {
  readonly caller: Caller
  readonly actionType: string
  readonly payload: Record<string, unknown>
  readonly approvalId?: string
}

export async function evaluateAction(
  deps: { readonly database: Database; readonly store: ContentStore; readonly policies: PolicyStore; readonly approvals: ApprovalStore },
  input: EvaluateInput,
  now = Date.now(),
): Promise<Evaluation> {
  const { caller, actionType, payload } = input
  const action = actionOrThrow(actionType)
  const digest = payloadDigest(payload)
  const { errors: payloadErrors, resolved } = await resolvePayload(action, payload, deps.store)
  const effective = resolvePolicy(await deps.policies.list(), actionType, action.defaultRiskLevel)
  const { policy } = effective
  const limits = resolved ? action.limits(payload, resolved.current, policy.limits) : []
  const boundary = resolved
    ? checkBoundaries(deps.store.resources, caller.boundaries, resolved.target)
    : { bounded: caller.boundaries !== null, allowed: caller.boundaries === null, problem: caller.boundaries !== null ? 'the target could not be resolved' : null }

  const reasons: string[] = []
  if (!policy.enabled) reasons.push(`policy ${policy.handle} is disabled and blocks ${actionType}`)

  const missingScopes: string[] = []
  if (!caller.scopes.has(EXECUTE_SCOPE)) missingScopes.push(EXECUTE_SCOPE)
  if (policy.requiredScope !== null && !caller.scopes.has(policy.requiredScope)) {
    missingScopes.push(policy.requiredScope)
    reasons.push(`policy ${policy.handle} requires the scope ${policy.requiredScope}`)
  }

  const reviewed = resolved ? reviewedStateOf(action, payload, resolved.current) : null
  const approval = await approvalState(deps.approvals, input, effective, digest, reviewed, now, reasons)
  if (approval.required && input.approvalId === undefined && !caller.scopes.has(REQUEST_SCOPE)) missingScopes.push(REQUEST_SCOPE)
  for (const l of limits) if (!l.ok && l.problem) reasons.push(l.problem)

  const decision = !caller.scopes.has(EXECUTE_SCOPE) ? 'forbidden'
    : payloadErrors.length > 0 ? 'invalid'
      : !boundary.allowed ? 'forbidden'
        : reasons.length > 0 ? 'blocked' : 'execute'
  return { action, payloadDigest: digest, payloadErrors, resolved, effective, missingScopes, limits, boundary, approval, reasons, decision }
}

async function approvalState(
  approvals: ApprovalStore, input: EvaluateInput, effective: EffectivePolicy, digest: string, reviewed: BoundState | null, now: number, reasons: string[],
): Promise<ApprovalState> {
  const required = effective.policy.requiresApproval
  const needed = effective.requiredApprovals
  const id = input.approvalId
  if (id === undefined) {
    if (required) reasons.push(`policy ${effective.policy.handle} requires approval (${needed} approval${needed > 1 ? 's' : ''}); request one with POST /control/approvals/request`)
    return { required, approvalId: null, record: null, approvalsGiven: 0, approvalsRequired: needed, payloadMatches: null, reviewedStateMatches: null, usable: !required }
  }
  const found = await approvals.get(id)
  // Another credential's approval is not the caller's to use, nor to learn about.
  const record = found && found.requester.type === 'credential' && found.requester.id === input.caller.credentialId ? found : null
  if (!record) {
    reasons.push(`approval ${id} not found`)
    return { required, approvalId: id, record: null, approvalsGiven: 0, approvalsRequired: needed, payloadMatches: null, reviewedStateMatches: null, usable: false }
  }
  const approvalsRequired = Math.max(record.requiredApprovals, needed)
  const payloadMatches = record.actionType === input.actionType && record.payloadDigest === digest
  const expired = record.status === 'expired' || ((record.status === 'pending' || record.status === 'approved') && now >= Date.parse(record.expiresAt))
  const before = reasons.length
  if (!payloadMatches) reasons.push(`approval ${id} was granted for a different actionType or payload (digest ${record.payloadDigest})`)
  const stateProblem = payloadMatches ? reviewedStateProblem(record, reviewed) : null
  if (stateProblem !== null) reasons.push(stateProblem)
  if (expired) reasons.push(`approval ${id} expired at ${record.expiresAt}`)
  else if (record.status === 'pending') reasons.push(`approval ${id} is pending (${record.approvalsGiven} of ${record.requiredApprovals} approvals)`)
  else if (record.status === 'rejected') reasons.push(`approval ${id} was rejected`)
  else if (record.status === 'consumed') reasons.push(`approval ${id} was already used by execution ${record.executionId ?? '?'}`)
  else if (record.approvalsGiven < approvalsRequired) reasons.push(`policy ${effective.policy.handle} now requires ${approvalsRequired} approvals; approval ${id} has ${record.approvalsGiven}`)
  const reviewedStateMatches = record.reviewedState === null || !payloadMatches ? null : stateProblem === null
  return { required, approvalId: id, record, approvalsGiven: record.approvalsGiven, approvalsRequired, payloadMatches, reviewedStateMatches, usable: reasons.length === before }
}
