// The Accounts create form, read into the same body the admin API's POST /credentials
// takes and checked against the same schema (CreateCredentialBody), so the panel accepts
// exactly what the API accepts; the credential service then applies its own checks.
import { expiryFromDuration, type CreateCredentialInput, type WebhookInterest } from '../auth/credentials.js'
import { CreateCredentialBody } from '../api/admin/credential-routes.js'
import { schemaProblems } from '../store/validation.js'
import { invalidMany, type ErrorDetail } from '../kernel/errors.js'
import type { FormWords } from './field-errors.js'

export const INTEREST_TYPES = ['entry', 'product', 'order'] as const
export const INTEREST_ACTIONS = ['created', 'updated', 'deleted'] as const

export interface AccountFormValues {
  readonly label: string
  readonly scopes: readonly string[]
  readonly expiresIn: string
  readonly ipAllowlist: string
  /** `entry:created` and so on. */
  readonly interests: readonly string[]
  readonly sections: string
  readonly entryIds: string
  readonly productIds: string
}

export const emptyAccountForm: AccountFormValues = { label: '', scopes: [], expiresIn: '', ipAllowlist: '', interests: [], sections: '', entryIds: '', productIds: '' }

export function readAccountForm(form: URLSearchParams): AccountFormValues {
  const text = (name: string) => (form.get(name) ?? '').trim()
  return {
    label: text('label'), scopes: form.getAll('scopes'), expiresIn: text('expiresIn'), ipAllowlist: text('ipAllowlist'),
    interests: form.getAll('interests'), sections: text('sections'), entryIds: text('entryIds'), productIds: text('productIds'),
  }
}

const list = (text: string) => text.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean)

function ids(param: string, text: string, problems: ErrorDetail[]): number[] {
  return list(text).flatMap((x) => {
    if (/^[1-9]\d{0,15}$/.test(x)) return [Number(x)]
    problems.push({ param, problem: `"${x.slice(0, 40)}" is not a positive integer id` })
    return []
  })
}

/** The create input, or an INVALID_REQUEST naming every bad field. */
export function toCreateInput(v: AccountFormValues): CreateCredentialInput {
  const problems: ErrorDetail[] = []
  const webhookInterests: WebhookInterest[] = []
  for (const resourceType of INTEREST_TYPES) {
    const actions = INTEREST_ACTIONS.filter((a) => v.interests.includes(`${resourceType}:${a}`))
    if (actions.length > 0) webhookInterests.push({ resourceType, actions })
  }
  const sections = list(v.sections)
  const entryIds = ids('boundaries.entryIds', v.entryIds, problems)
  const productIds = ids('boundaries.productIds', v.productIds, problems)
  const boundaries = sections.length + entryIds.length + productIds.length === 0 ? null : {
    ...(sections.length > 0 ? { sections } : {}), ...(entryIds.length > 0 ? { entryIds } : {}), ...(productIds.length > 0 ? { productIds } : {}),
  }
  const body = {
    label: v.label, scopes: [...v.scopes], ipAllowlist: list(v.ipAllowlist), webhookInterests, boundaries,
    ...(v.expiresIn ? { expiresIn: v.expiresIn } : {}),
  }
  problems.push(...schemaProblems(CreateCredentialBody, body))
  if (problems.length > 0) throw invalidMany(problems)
  const { expiresIn, ...rest } = body as typeof body & { expiresIn?: string }
  return { ...rest, expiresAt: expiresIn ? expiryFromDuration(expiresIn) : null }
}

/** The create form's fields and what to say about each problem. */
export const ACCOUNT_FIELDS: Readonly<Record<string, string>> = {
  label: 'Label', expiresIn: 'Expires in', ipAllowlist: 'IP allowlist', scopes: 'Scopes', interests: 'Webhook interests',
  sections: 'Sections', entryIds: 'Entry ids', productIds: 'Product ids',
}

const quoted = (problem: string) => /"([^"]*)"/.exec(problem)?.[1]

export const accountWords: FormWords = {
  fieldOf: (param) => {
    const field = param.replace(/^boundaries\./, '').replace(/\..*$/, '')
    return field === 'webhookInterests' ? 'interests' : field in ACCOUNT_FIELDS ? field : '(form)'
  },
  message: (field, problem) => {
    const bad = quoted(problem)
    switch (field) {
      case 'label': return 'Give the credential a label of up to 200 characters, so people can tell what uses it.'
      case 'scopes': return bad !== undefined ? `"${bad}" is not a scope Gatehouse knows.` : 'Choose at least one scope: the credential can do nothing without one.'
      case 'expiresIn': return 'Write the expiry as a number and a unit: 30d (days), 12h (hours) or 90m (minutes). Leave it empty for no expiry.'
      case 'ipAllowlist': return `${bad !== undefined ? `"${bad}" is not an address or range. ` : ''}Write addresses such as 192.0.2.1 or ranges such as 10.0.0.0/8, separated by commas or lines.`
      case 'entryIds': case 'productIds':
        return `Write ${field === 'entryIds' ? 'entry' : 'product'} ids as whole numbers separated by commas or spaces${bad !== undefined ? ` ("${bad}" is not one)` : ''}.`
      default: return undefined
    }
  },
}
