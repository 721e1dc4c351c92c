// Policies: which actions need approval, by how many deciders, with which extra scope and
// limits. A policy names actions by pattern (`*` matches any run of characters); the most
// specific matching pattern decides, and when none matches the built-in policy does: two
// approvals, so an action nobody thought about is never less guarded than a known one.

export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const
export type RiskLevel = (typeof RISK_LEVELS)[number]

export interface PolicyLimits {
  /** variant.setPrice: largest change, in percent of the current price. */
  readonly maxPriceChangePercent?: number
  /** order.refund: largest single refund. */
  readonly maxRefundAmount?: number
  /** variant.adjustStock: largest |delta|. */
  readonly maxStockAdjustment?: number
  /** variant.adjustStock: let stock fall below 0 (backorders). */
  readonly allowNegativeStock?: boolean
}

export interface Policy {
  readonly handle: string
  readonly displayName: string
  readonly actionPattern: string
  readonly enabled: boolean
  readonly requiresApproval: boolean
  /** null: the action's default risk level. */
  readonly riskLevel: RiskLevel | null
  /** null: 2 for high and critical risk, else 1. */
  readonly requiredApprovals: 1 | 2 | null
  /** A scope the executing credential must hold besides control:actions:execute. */
  readonly requiredScope: string | null
  readonly approvalTtlMinutes: number
  readonly limits: PolicyLimits
  readonly builtIn: boolean
  readonly createdAt: string | null
  readonly updatedAt: string | null
  readonly updatedBy: string | null
}

export const BUILT_IN_HANDLE = 'builtin-default'

export const builtInPolicy: Policy = Object.freeze({
  handle: BUILT_IN_HANDLE,
  displayName: 'Built-in default: two approvals for any action no policy matches',
  actionPattern: '*',
  enabled: true,
  requiresApproval: true,
  riskLevel: null,
  requiredApprovals: 2,
  requiredScope: null,
  approvalTtlMinutes: 60,
  limits: Object.freeze({}),
  builtIn: true,
  createdAt: null,
  updatedAt: null,
  updatedBy: null,
})

/** A policy applied to one action: the values that decide, with defaults filled in. */
export interface EffectivePolicy {
  readonly policy: Policy
  readonly riskLevel: RiskLevel
  readonly requiredApprovals: 1 | 2
}

const patternCache = new Map<string, RegExp>()

export function patternRegex(pattern: string): RegExp {
  let re = patternCache.get(pattern)
  if (!re) {
    re = new RegExp('^' + pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$')
    patternCache.set(pattern, re)
  }
  return re
}

/**
 * Orders matching policies most specific first: an exact pattern before any wildcard, then
 * more literal characters, then fewer wildcards, then by handle so the choice is stable.
 */
function specificity(a: Policy, b: Policy): number {
  const literal = (p: string) => p.replace(/\*/g, '').length
  const stars = (p: string) => p.length - literal(p)
  return (Number(stars(a.actionPattern) > 0) - Number(stars(b.actionPattern) > 0))
    || literal(b.actionPattern) - literal(a.actionPattern)
    || stars(a.actionPattern) - stars(b.actionPattern)
    || (a.handle < b.handle ? -1 : a.handle > b.handle ? 1 : 0)
}

/** The policy deciding `actionType` (the built-in one when none matches). */
export function resolvePolicy(policies: readonly Policy[], actionType: string, defaultRisk: RiskLevel): EffectivePolicy {
  const matching = policies.filter((p) => patternRegex(p.actionPattern).test(actionType)).sort(specificity)
  const policy = matching[0] ?? builtInPolicy
  const riskLevel = policy.riskLevel ?? defaultRisk
  const requiredApprovals = policy.requiredApprovals ?? (riskLevel === 'high' || riskLevel === 'critical' ? 2 : 1)
  return { policy, riskLevel, requiredApprovals }
}
