// The Accounts create form, read into the same body the admin API's POST /credentials
// takes and checked against the same schema (credentialBodies), so the panel accepts
// exactly what the API accepts; the credential service then applies its own checks.
// Interest rows and boundary fields come from the registry (event types, boundary axes).
import type { CreateCredentialInput, CredentialService, WebhookInterest } from '../auth/credentials.js'
import { credentialBodies, credentialInput } from '../api/admin/credential-routes.js'
import type { ResourceRegistry } from '../resources/index.js'
import type { BoundaryAxis } from '../resources/boundary-axes.js'
import type { ErrorDetail } from '../kernel/errors.js'
import type { FormWords } from './field-errors.js'

export const INTEREST_ACTIONS = ['created', 'updated', 'deleted'] as const

export interface AccountFormValues {
  readonly label: string
  readonly scopes: readonly string[]
  readonly expiresIn: string
  readonly ipAllowlist: string
  /** `entry:created` and so on. */
  readonly interests: readonly string[]
  /** Text of each boundary axis's field, by axis name (`sections`, `entryIds`). */
  readonly boundaries: Readonly<Record<string, string>>
}

export const emptyAccountForm: AccountFormValues = { label: '', scopes: [], expiresIn: '', ipAllowlist: '', interests: [], boundaries: {} }

export function readAccountForm(form: URLSearchParams, axes: readonly BoundaryAxis[]): AccountFormValues {
  const text = (name: string) => (form.get(name) ?? '').trim()
  return {
    label: text('label'), scopes: form.getAll('scopes'), expiresIn: text('expiresIn'), ipAllowlist: text('ipAllowlist'),
    interests: form.getAll('interests'), boundaries: Object.fromEntries(axes.map((a) => [a.name, text(a.name)])),
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

/**
 * The form's values as the service's input, or a 400 naming every problem at once: the fields'
 * own (id lists), the schema's and the service's checks (`checks`: an unknown scope, a bad
 * CIDR, a zero duration), as the admin API names them (credentialInput).
 */
export function toCreateInput(v: AccountFormValues, resources: ResourceRegistry, checks: Pick<CredentialService, 'problemsOf'>): CreateCredentialInput {
  const problems: ErrorDetail[] = []
  const webhookInterests: WebhookInterest[] = []
  for (const resourceType of resources.eventTypes) {
    const actions = INTEREST_ACTIONS.filter((a) => v.interests.includes(`${resourceType}:${a}`))
    if (actions.length > 0) webhookInterests.push({ resourceType, actions })
  }
  // Only axes given are stored, as the admin API stores what it is sent.
  const given = resources.boundaryAxes.flatMap((a): [string, (string | number)[]][] => {
    const text = v.boundaries[a.name] ?? ''
    const values = a.values === 'id' ? ids(`boundaries.${a.name}`, text, problems) : list(text)
    return values.length > 0 ? [[a.name, values]] : []
  })
  const boundaries = given.length === 0 ? null : Object.fromEntries(given)
  const body = {
    label: v.label, scopes: [...v.scopes], ipAllowlist: list(v.ipAllowlist), webhookInterests, boundaries,
    ...(v.expiresIn ? { expiresIn: v.expiresIn } : {}),
  }
  const input = credentialInput(credentialBodies(resources).create, body, checks, problems)
  return { ...input, expiresAt: input.expiresAt ?? null } as CreateCredentialInput
}

/** The create form's fields (one per boundary axis among them) and their labels. */
export function accountFields(axes: readonly BoundaryAxis[]): Readonly<Record<string, string>> {
  return {
    label: 'Label', expiresIn: 'Expires in', ipAllowlist: 'IP allowlist', scopes: 'Scopes', interests: 'Webhook interests',
    ...Object.fromEntries(axes.map((a) => [a.name, a.label])),
  }
}

const quoted = (problem: string) => /"([^"]*)"/.exec(problem)?.[1]

/** What to say about each problem of the create form. */
export function accountWords(axes: readonly BoundaryAxis[]): FormWords {
  const fields = accountFields(axes)
  return {
    fieldOf: (param) => {
      const field = param.replace(/^boundaries\./, '').replace(/\..*$/, '')
      return field === 'webhookInterests' ? 'interests' : field in fields ? field : '(form)'
    },
    message: (field, problem) => {
      const bad = quoted(problem)
      const axis = axes.find((a) => a.name === field)
      if (axis?.values === 'id') return `Write ${axis.noun} ids as whole numbers separated by commas or spaces${bad !== undefined ? ` ("${bad}" is not one)` : ''}.`
      switch (field) {
        case 'label': return 'Give the credential a label of up to 200 characters, so people can tell what uses it.'
        case 'scopes': return bad !== undefined ? `"${bad}" is not a scope Gatehouse knows.` : 'Choose at least one scope: the credential can do nothing without one.'
        case 'expiresIn':
          if (problem.startsWith('at most')) return 'An expiry can be at most 36500d (100 years). Leave it empty for no expiry.'
          if (problem.startsWith('must be more than zero')) return 'An expiry must be more than zero: 30d (days), 12h (hours) or 90m (minutes). Leave it empty for no expiry.'
          return 'Write the expiry as a number and a unit: 30d (days), 12h (hours) or 90m (minutes). Leave it empty for no expiry.'
        case 'ipAllowlist': return `${bad !== undefined ? `"${bad}" is not an address or range. ` : ''}Write addresses such as 192.0.2.1 or ranges such as 10.0.0.0/8, separated by commas or lines.`
        default: return undefined
      }
    },
  }
}
