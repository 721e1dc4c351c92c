// Form errors shown next to their field, in words. Services and schemas name the bad
// parameter (`scopes`, `limits.maxRefundAmount`) and say what is wrong in validator terms;
// each form maps a parameter to its field and says what to do instead. A problem no form
// knows stays readable: its text with a capital letter, next to the field or above the form.
import { html, type Html } from './html.js'
import type { ErrorDetail } from '../kernel/errors.js'

/** The message for one field, by field name; `(form)` holds problems with no field. */
export type FieldErrors = ReadonlyMap<string, string>

export interface FormWords {
  /** The field a parameter belongs to (`boundaries.entryIds` → `entryIds`). */
  readonly fieldOf: (param: string) => string
  /** What to tell the user about a problem with a field; undefined for the generic text. */
  readonly message: (field: string, problem: string) => string | undefined
}

const sentence = (problem: string) => {
  const t = problem.trim()
  return `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`
}

export function fieldErrors(details: readonly ErrorDetail[], words: FormWords): FieldErrors {
  const out = new Map<string, string>()
  for (const d of details) {
    const field = words.fieldOf(d.param)
    const text = words.message(field, d.problem) ?? sentence(d.problem)
    const before = out.get(field)
    if (before === undefined) out.set(field, text)
    else if (!before.includes(text)) out.set(field, `${before} ${text}`)
  }
  return out
}

/** The error under a field (empty when it has none); the field points at it with aria-describedby. */
export function fieldError(errors: FieldErrors, field: string): Html {
  const text = errors.get(field)
  return text === undefined ? html`` : html`<p class="field-error" id="error-${field}">${text}</p>`
}

/** Attributes for a field's input: marked invalid and described by its error. */
export function invalidAttrs(errors: FieldErrors, field: string): Html {
  return errors.has(field) ? html` aria-invalid="true" aria-describedby="error-${field}"` : html``
}

/** Above the form: which fields need attention (linked), and problems that belong to no field. */
export function errorSummary(errors: FieldErrors, labels: Readonly<Record<string, string>>): Html {
  if (errors.size === 0) return html``
  const order = Object.keys(labels)
  const fields = [...errors.keys()].filter((f) => f !== '(form)').sort((a, b) => order.indexOf(a) - order.indexOf(b))
  return html`<div class="flash error" role="alert">${fields.length === 0 ? '' : html`<p><strong>${fields.length === 1 ? 'One field needs' : `${fields.length} fields need`} attention:</strong>
    ${fields.map((f, i) => html`${i > 0 ? ', ' : ''}<a href="#field-${f}">${labels[f] ?? f}</a>`)}.</p>`}${errors.has('(form)') ? html`<p>${errors.get('(form)')}</p>` : ''}</div>`
}
