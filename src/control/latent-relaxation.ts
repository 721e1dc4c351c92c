// Shadowed lax policies. A policy that a more specific one shadows decides nothing today, but
// takes over the moment the shadowing policy is narrowed, re-pointed or rewritten. Writing it
// lax would leave a relaxation waiting for a harmless-looking change to release it, so a
// written policy is also judged where it is shadowed: for each action it matches that another
// policy decides, the written policy as that action's decider is compared with the baseline
// (the same policy before the change if it matched the action then, whose laxness was
// already accepted; otherwise the action's decider before the change). Anything laxer
// relaxes control like a change that decides the action now.
import { allActions } from './actions/action-registry.js'
import { patternRegex, resolvePolicy, type Policy } from './policy.js'
import { actionRelaxations, relaxations, withPolicy, type Relaxation } from './policy-relaxation.js'

/** Everything writing `written` over `current` relaxes: its effect now, and where it is shadowed. */
export function changeRelaxations(current: readonly Policy[], written: Policy): Relaxation[] {
  const after = withPolicy(current, written)
  return [...relaxations(current, after), ...latentRelaxations(current, after, written)]
}

/** How `written` relaxes control over the actions it matches but does not decide in `after`. */
export function latentRelaxations(before: readonly Policy[], after: readonly Policy[], written: Policy): Relaxation[] {
  const out: Relaxation[] = []
  const old = before.find((p) => p.handle === written.handle)
  const matches = patternRegex(written.actionPattern)
  for (const action of allActions()) {
    if (!matches.test(action.type)) continue
    const decider = resolvePolicy(after, action.type, action.defaultRiskLevel).policy
    if (decider.handle === written.handle) continue
    const baseline = old && patternRegex(old.actionPattern).test(action.type) ? [old] : before
    out.push(...actionRelaxations(action.type, resolvePolicy(baseline, action.type, action.defaultRiskLevel), resolvePolicy([written], action.type, action.defaultRiskLevel), decider.handle))
  }
  return out
}
