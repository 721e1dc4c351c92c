// The Accounts create form, read into the same body the admin API's POST /credentials
// takes and checked against the same schema (CreateCredentialBody), so the panel accepts
// exactly what the API accepts; the credential service then applies its own checks.
import { expiryFromDuration, type CreateCredentialInput, type WebhookInterest } from '../auth/credentials.js'
import { CreateCredentialBody } from '../api/admin/credential-routes.js'
import { assertValid } from '../store/validation.js'
import { invalid } from '../contract/errors.js'

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

function ids(param: string, text: string): number[] {
  return list(text).map((x) => {
    if (!/^[1-9]\d{0,15}$/.test(x)) throw invalid(param, `"${x.slice(0, 40)}" is not a positive integer id`)
    return Number(x)
  })
}

/** The create input, or an INVALID_REQUEST naming the bad field. */
export function toCreateInput(v: AccountFormValues): CreateCredentialInput {
  const webhookInterests: WebhookInterest[] = []
  for (const resourceType of INTEREST_TYPES) {
    const actions = INTEREST_ACTIONS.filter((a) => v.interests.includes(`${resourceType}:${a}`))
    if (actions.length > 0) webhookInterests.push({ resourceType, actions })
  }
  const sections = list(v.sections)
  const entryIds = ids('boundaries.entryIds', v.entryIds)
  const productIds = ids('boundaries.productIds', v.productIds)
  const boundaries = sections.length + entryIds.length + productIds.length === 0 ? null : {
    ...(sections.length > 0 ? { sections } : {}), ...(entryIds.length > 0 ? { entryIds } : {}), ...(productIds.length > 0 ? { productIds } : {}),
  }
  const body = {
    label: v.label, scopes: [...v.scopes], ipAllowlist: list(v.ipAllowlist), webhookInterests, boundaries,
    ...(v.expiresIn ? { expiresIn: v.expiresIn } : {}),
  }
  assertValid(CreateCredentialBody, body)
  const { expiresIn, ...rest } = body as typeof body & { expiresIn?: string }
  return { ...rest, expiresAt: expiresIn ? expiryFromDuration(expiresIn) : null }
}
