// When a policy change relaxes governance. Policies interact (the most specific match
// decides, a disabled match blocks, no match falls back to two approvals), so a change is
// judged by its effect, not by its fields: for every registered action, the policy that
// decides it before the change is compared with the one that decides it after. The change
// relaxes control when, for some action, after it:
//   - an action that was blocked (its deciding policy disabled) can run;
//   - approval is no longer required, or fewer approvals are;
//   - an approval may wait longer (a larger approvalTtlMinutes);
//   - the effective risk level is lower;
//   - the executor no longer needs the scope the policy required (or needs another one);
//   - a limit is higher or gone (maxPriceChangePercent, maxRefundAmount, maxStockAdjustment),
//     or negative stock is newly allowed.
// That covers editing a policy's own fields, widening its pattern over actions a stricter
// policy (or the built-in two-approval default) decided, narrowing it so a laxer policy
// decides instead, and a new policy whose pattern covers actions another governs more
// strictly. Anything else (stricter values, a policy disabled, a pattern over actions
// already governed more loosely) tightens or keeps control, and is written directly.
import { allActions } from './actions/action-registry.js'
import { RISK_LEVELS, resolvePolicy, type EffectivePolicy, type Policy, type PolicyLimits } from './policy.js'

export interface Relaxation {
  readonly actionType: string
  /** The upsert field that causes it (`actionPattern` when another policy decided the action before). */
  readonly param: string
  readonly problem: string
}

const NUMERIC_LIMITS = ['maxPriceChangePercent', 'maxRefundAmount', 'maxStockAdjustment'] as const satisfies readonly (keyof PolicyLimits)[]
const rank = (r: string) => RISK_LEVELS.indexOf(r as (typeof RISK_LEVELS)[number])

/** How `after` relaxes control over each action compared with `before` (empty: it does not). */
export function relaxations(before: readonly Policy[], after: readonly Policy[]): Relaxation[] {
  const out: Relaxation[] = []
  for (const action of allActions()) {
    const b = resolvePolicy(before, action.type, action.defaultRiskLevel)
    const a = resolvePolicy(after, action.type, action.defaultRiskLevel)
    out.push(...actionRelaxations(action.type, b, a))
  }
  return out
}

/**
 * How `a` deciding `actionType` relaxes control compared with `b` deciding it. `shadowedBy`:
 * `a` does not decide it but would if that policy no longer matched (latent-relaxation.ts);
 * the problems then name `a`'s own fields.
 */
export function actionRelaxations(actionType: string, b: EffectivePolicy, a: EffectivePolicy, shadowedBy?: string): Relaxation[] {
  const out: Relaxation[] = []
  const moved = shadowedBy === undefined && a.policy.handle !== b.policy.handle
  const was = `policy ${b.policy.handle}`
  const now = shadowedBy !== undefined ? `policy ${a.policy.handle} (which decides it once policy ${shadowedBy} no longer matches it)`
    : moved ? `policy ${a.policy.handle} (now deciding it)` : `policy ${a.policy.handle}`
  const add = (field: string, problem: string) => out.push({ actionType, param: moved ? 'actionPattern' : field, problem: `${actionType}: ${problem}` })
  // A blocked action stays blocked whatever else changes; nothing else can relax it.
  if (!a.policy.enabled) return out
  if (!b.policy.enabled) {
    add('enabled', `${was} was disabled and blocked it; ${now} lets it run`)
    return out
  }
  if (b.policy.requiresApproval && !a.policy.requiresApproval) add('requiresApproval', `${was} required approval; ${now} does not`)
  if (a.policy.requiresApproval && b.policy.requiresApproval) {
    if (a.requiredApprovals < b.requiredApprovals) add('requiredApprovals', `${was} required ${b.requiredApprovals} approvals; ${now} requires ${a.requiredApprovals}`)
    if (a.policy.approvalTtlMinutes > b.policy.approvalTtlMinutes) {
      add('approvalTtlMinutes', `approvals lived ${b.policy.approvalTtlMinutes} minutes under ${was}; ${a.policy.approvalTtlMinutes} under ${now}`)
    }
  }
  if (rank(a.riskLevel) < rank(b.riskLevel)) add('riskLevel', `risk ${b.riskLevel} under ${was}; ${a.riskLevel} under ${now}`)
  if (b.policy.requiredScope !== null && a.policy.requiredScope !== b.policy.requiredScope) {
    add('requiredScope', `${was} required the scope ${b.policy.requiredScope}; ${now} ${a.policy.requiredScope === null ? 'requires none' : `requires ${a.policy.requiredScope} instead`}`)
  }
  for (const key of NUMERIC_LIMITS) {
    const before = b.policy.limits[key]
    const after = a.policy.limits[key]
    if (before !== undefined && (after === undefined || after > before)) {
      out.push({ actionType, param: moved ? 'actionPattern' : `limits.${key}`, problem: `${actionType}: limit ${key} was ${before} under ${was}; ${after === undefined ? 'none' : after} under ${now}` })
    }
  }
  if (b.policy.limits.allowNegativeStock !== true && a.policy.limits.allowNegativeStock === true) {
    out.push({ actionType, param: moved ? 'actionPattern' : 'limits.allowNegativeStock', problem: `${actionType}: ${now} allows negative stock; ${was} did not` })
  }
  return out
}

/** The policies as they would be after upserting `policy` (replacing the one with its handle). */
export function withPolicy(policies: readonly Policy[], policy: Policy): Policy[] {
  return [...policies.filter((p) => p.handle !== policy.handle), policy]
}
