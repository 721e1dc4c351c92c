// HTML for the panel's pages: a tagged template that escapes every interpolated value
// unless it is already `Html` (built by this template). Escaping is the default, so a
// credential label, an error message or a webhook payload can never become markup.

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' }

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => ESCAPES[c])
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[]

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof Html) return value.text
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

export function html(strings: TemplateStringsArray, ...values: readonly Value[]): Html {
  let out = strings[0]
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]
  return new Html(out)
}

/** Pretty JSON for payload inspection (escaped when interpolated). */
export const prettyJson = (value: unknown): string => JSON.stringify(value, null, 2)

/** A timestamp as operators read it; '—' when absent. */
export const when = (iso: string | null | undefined): string => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—')

/** `1 dead-lettered delivery`, `3 dead-lettered deliveries`: a count with its noun in the right number. */
export const plural = (n: number, one: string, many: string): string => `${n.toLocaleString('en')} ${n === 1 ? one : many}`
