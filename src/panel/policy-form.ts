// The policy form: read into the body the admin API's POST /control/policies/upsert takes,
// checked against the same schema (PolicyFields); the policy store then applies its own checks
// (the pattern must match an action, the scope must exist). Numbers are typed as text in
// a form, so each is read here and a field that is not a number is named, not coerced.
import type { Static } from '@sinclair/typebox'
import type { ErrorDetail } from '../kernel/errors.js'
import { schemaProblems } from '../store/validation.js'
import { PolicyFields } from '../control/control-schemas.js'
import type { Policy } from '../control/policy.js'
import { actionTypes } from '../control/actions/action-registry.js'
import type { FormWords } from './field-errors.js'

export interface PolicyFormValues {
  readonly handle: string
  readonly displayName: string
  readonly actionPattern: string
  readonly enabled: boolean
  readonly requiresApproval: boolean
  /** '' for the action's default. */
  readonly riskLevel: string
  /** '', '1' or '2'. */
  readonly requiredApprovals: string
  readonly requiredScope: string
  readonly approvalTtlMinutes: string
  readonly maxPriceChangePercent: string
  readonly maxRefundAmount: string
  readonly maxStockAdjustment: string
  /** '', 'yes' or 'no'. */
  readonly allowNegativeStock: string
}

export const emptyPolicyForm: PolicyFormValues = {
  handle: '', displayName: '', actionPattern: '', enabled: true, requiresApproval: true, riskLevel: '', requiredApprovals: '',
  requiredScope: '', approvalTtlMinutes: '60', maxPriceChangePercent: '', maxRefundAmount: '', maxStockAdjustment: '', allowNegativeStock: '',
}

const num = (n: number | undefined) => (n === undefined ? '' : String(n))

export function policyFormOf(p: Policy): PolicyFormValues {
  return {
    handle: p.handle, displayName: p.displayName, actionPattern: p.actionPattern, enabled: p.enabled, requiresApproval: p.requiresApproval,
    riskLevel: p.riskLevel ?? '', requiredApprovals: p.requiredApprovals === null ? '' : String(p.requiredApprovals), requiredScope: p.requiredScope ?? '',
    approvalTtlMinutes: String(p.approvalTtlMinutes), maxPriceChangePercent: num(p.limits.maxPriceChangePercent), maxRefundAmount: num(p.limits.maxRefundAmount),
    maxStockAdjustment: num(p.limits.maxStockAdjustment), allowNegativeStock: p.limits.allowNegativeStock === undefined ? '' : p.limits.allowNegativeStock ? 'yes' : 'no',
  }
}

export function readPolicyForm(form: URLSearchParams): PolicyFormValues {
  const text = (name: string) => (form.get(name) ?? '').trim()
  return {
    handle: text('handle'), displayName: text('displayName'), actionPattern: text('actionPattern'),
    enabled: form.get('enabled') === 'on', requiresApproval: form.get('requiresApproval') === 'on',
    riskLevel: text('riskLevel'), requiredApprovals: text('requiredApprovals'), requiredScope: text('requiredScope'), approvalTtlMinutes: text('approvalTtlMinutes'),
    maxPriceChangePercent: text('maxPriceChangePercent'), maxRefundAmount: text('maxRefundAmount'), maxStockAdjustment: text('maxStockAdjustment'),
    allowNegativeStock: text('allowNegativeStock'),
  }
}

/** The form as the admin API's policy body, and the problems of its fields (numbers, the schema's). */
export function toPolicyBody(v: PolicyFormValues): { body: Static<typeof PolicyFields>; problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = []
  const number = (param: string, text: string): number | undefined => {
    if (text === '') return undefined
    const n = Number(text)
    if (!/^-?\d+(\.\d+)?$/.test(text) || !Number.isFinite(n)) { problems.push({ param, problem: 'not a number' }); return undefined }
    return n
  }
  const limits = {
    maxPriceChangePercent: number('limits.maxPriceChangePercent', v.maxPriceChangePercent),
    maxRefundAmount: number('limits.maxRefundAmount', v.maxRefundAmount),
    maxStockAdjustment: number('limits.maxStockAdjustment', v.maxStockAdjustment),
    allowNegativeStock: v.allowNegativeStock === 'yes' ? true : v.allowNegativeStock === 'no' ? false : undefined,
  }
  const approvals = v.requiredApprovals === '' ? null : number('requiredApprovals', v.requiredApprovals)
  const body = {
    handle: v.handle, displayName: v.displayName, actionPattern: v.actionPattern, enabled: v.enabled, requiresApproval: v.requiresApproval,
    riskLevel: v.riskLevel === '' ? null : v.riskLevel, requiredApprovals: approvals, requiredScope: v.requiredScope === '' ? null : v.requiredScope,
    ...(v.approvalTtlMinutes === '' ? {} : { approvalTtlMinutes: number('approvalTtlMinutes', v.approvalTtlMinutes) }),
    limits: Object.fromEntries(Object.entries(limits).filter(([, x]) => x !== undefined)),
  }
  const bad = new Set(problems.map((p) => p.param))
  problems.push(...schemaProblems(PolicyFields, body).filter((p) => !bad.has(p.param)))
  return { body: body as Static<typeof PolicyFields>, problems }
}

export const POLICY_FIELDS: Readonly<Record<string, string>> = {
  handle: 'Handle', displayName: 'Name', actionPattern: 'Actions', riskLevel: 'Risk level', requiredApprovals: 'Approvals required',
  requiredScope: 'Extra scope', approvalTtlMinutes: 'Approval valid for', maxPriceChangePercent: 'Largest price change',
  maxRefundAmount: 'Largest refund', maxStockAdjustment: 'Largest stock adjustment', allowNegativeStock: 'Negative stock',
}

export const policyWords: FormWords = {
  fieldOf: (param) => {
    const field = param.replace(/^limits\./, '')
    return field in POLICY_FIELDS ? field : '(form)'
  },
  message: (field, problem) => {
    switch (field) {
      case 'handle': return /built-in/.test(problem) ? 'That handle belongs to the built-in policy; choose another (a policy for "*" overrides it).'
        : 'Use 1 to 100 lower-case letters, digits, dots, dashes or underscores, starting with a letter or digit, such as refunds-large.'
      case 'displayName': return 'Give the policy a name of up to 200 characters.'
      case 'actionPattern': return /matches no registered action/.test(problem) ? `This matches no action. Actions are ${actionTypes().join(', ')}; * matches any run of characters.`
        : 'Name actions with letters, digits, dots and dashes, and * as a wildcard, such as order.refund or variant.*.'
      case 'riskLevel': return 'Choose low, medium, high or critical, or the action\'s default.'
      case 'requiredApprovals': return 'Choose 1 or 2 approvals, or the default.'
      case 'requiredScope': return /unknown scope/.test(problem) ? `${/"([^"]*)"/.exec(problem)?.[1] ?? 'That'} is not a scope Gatehouse knows.` : undefined
      case 'approvalTtlMinutes': return 'Write a number of minutes from 0.01 to 43,200 (30 days).'
      case 'maxPriceChangePercent': return 'Write a percentage of 0 or more, or leave it empty for no limit.'
      case 'maxRefundAmount': return 'Write an amount of 0 or more, or leave it empty for no limit.'
      case 'maxStockAdjustment': return 'Write a whole number of 0 or more, or leave it empty for no limit.'
      default: return undefined
    }
  },
}
