// The Create workflow form's words: each problem the job runtime or the form reader names
// (`schedule.cron`, `boundary.entryIds`) is shown under its field saying what to write, as
// the Create credential form does, keeping the runtime's own detail where it helps (which
// cron field is wrong). The template key is chosen from the known templates (/templates).
import type { ErrorDetail } from '../contract/errors.js'
import { templateCatalog } from '../ops/templates/catalog.js'
import type { FormWords } from './field-errors.js'

/** The form's fields, in order, with their labels (the error summary links them). */
export const JOB_FIELDS: Readonly<Record<string, string>> = {
  name: 'Name', templateKey: 'Template', credentialId: 'Runs as', cron: 'Cron expression', timezone: 'Time zone',
  sections: 'Sections', entryIds: 'Entry ids', productIds: 'Product ids', config: 'Config',
}

/** The templates a workflow can name: id and display name, as GET /templates lists them. */
export const JOB_TEMPLATES: readonly { readonly id: string; readonly name: string }[] = templateCatalog.map((t) => ({ id: t.id, name: t.displayName }))

/** A template key the form refuses before the runtime sees it: only the known templates are offered. */
export function templateProblem(key: string): ErrorDetail | undefined {
  return JOB_TEMPLATES.some((t) => t.id === key) ? undefined : { param: 'templateKey', problem: 'not a known template' }
}

const quoted = (problem: string) => /"([^"]*)"/.exec(problem)?.[1]
const FIELD_OF: Readonly<Record<string, string>> = { schedule: 'cron', 'schedule.cron': 'cron', 'schedule.timezone': 'timezone', boundary: 'sections' }
const detail = (problem: string) => problem.trim().replace(/[.]$/, '')

export const jobWords: FormWords = {
  fieldOf: (param) => {
    const field = FIELD_OF[param] ?? param.replace(/^boundary\./, '').replace(/\..*$/, '')
    return field in JOB_FIELDS ? field : '(form)'
  },
  message: (field, problem) => {
    const bad = quoted(problem)
    switch (field) {
      case 'name': return 'Give the workflow a name of up to 200 characters, so people can tell what it does.'
      // An empty choice reaches the schema as a validator's text; other problems (a revoked credential) say what is wrong.
      case 'credentialId': return /^Expected|required/i.test(problem) ? 'Choose the credential the workflow runs as.' : undefined
      case 'templateKey': return `Choose one of the templates: ${JOB_TEMPLATES.map((t) => t.id).join(', ')}.`
      case 'cron': return `Write five fields: minute, hour, day of month, month and day of week; 30 2 * * * is 02:30 every day (here: ${detail(problem)}).`
      case 'timezone': return `Write an IANA time zone name such as Europe/Berlin, America/New_York or UTC${bad !== undefined ? ` ("${bad}" is not one)` : ''}.`
      case 'sections': return 'Write section handles separated by commas or spaces, such as news, blog.'
      case 'entryIds': case 'productIds':
        return `Write ${field === 'entryIds' ? 'entry' : 'product'} ids as whole numbers separated by commas or spaces${bad !== undefined ? ` ("${bad}" is not one)` : ''}.`
      case 'config': return 'Write the config as a JSON object, such as {"destination": "warehouse"}, or leave it empty.'
      default: return undefined
    }
  },
}
