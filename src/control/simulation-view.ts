// What a simulation answers (POST /control/policy-simulate and the MCP simulate_action tool):
// the evaluation of an action, with the reasons it would not run spelled out.
import { EXECUTE_SCOPE, type Evaluation } from './evaluate-action.js'

export function simulationView(ev: Evaluation, actionType: string, hasExecuteScope: boolean) {
  const why: string[] = []
  if (!hasExecuteScope) why.push(`missing required scope: ${EXECUTE_SCOPE}`)
  if (ev.payloadErrors.length > 0) why.push('the payload is invalid (see payloadErrors)')
  if (ev.boundary.problem && !ev.boundary.allowed && ev.payloadErrors.length === 0) why.push(ev.boundary.problem)
  const p = ev.effective.policy
  return {
    actionType,
    decision: ev.decision,
    wouldExecute: ev.decision === 'execute',
    reasons: [...why, ...ev.reasons],
    policy: {
      handle: p.handle, builtIn: p.builtIn, actionPattern: p.actionPattern, enabled: p.enabled, requiresApproval: p.requiresApproval,
      riskLevel: ev.effective.riskLevel, requiredApprovals: ev.effective.requiredApprovals, requiredScope: p.requiredScope, approvalTtlMinutes: p.approvalTtlMinutes,
    },
    approval: {
      required: ev.approval.required, approvalId: ev.approval.approvalId, status: ev.approval.record?.status ?? null,
      approvalsGiven: ev.approval.approvalsGiven, approvalsRequired: ev.approval.approvalsRequired,
      payloadMatches: ev.approval.payloadMatches, reviewedStateMatches: ev.approval.reviewedStateMatches, usable: ev.approval.usable,
    },
    missingScopes: [...ev.missingScopes],
    payloadErrors: ev.payloadErrors.map((d) => ({ param: d.param, problem: d.problem })),
    limits: ev.limits.map(({ param: _param, ...l }) => l),
    boundaries: { bounded: ev.boundary.bounded, allowed: ev.boundary.allowed, problem: ev.boundary.problem },
    target: ev.resolved?.target.entity ?? null,
  }
}
