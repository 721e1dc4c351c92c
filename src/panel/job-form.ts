// The Create workflow form's words: each problem the job runtime or the form reader names
// (`schedule.cron`, `boundary.entryIds`) is shown under its field saying what to write, as
// the Create credential form does, keeping the runtime's own detail where it helps (which
// cron field is wrong). The template key is chosen from the known templates (/templates).
import type { ErrorDetail } from '../kernel/errors.js'
import type { BoundaryAxis } from '../resources/boundary-axes.js'
import { templateCatalog } from '../ops/templates/catalog.js'
import type { FormWords } from './field-errors.js'

/** The form's fields, in order, with their labels (the error summary links them): one per boundary axis the families declare. */
export function jobFields(axes: readonly BoundaryAxis[]): Readonly<Record<string, string>> {
  return {
    name: 'Name', templateKey: 'Template', credentialId: 'Runs as', cron: 'Cron expression', timezone: 'Time zone',
    ...Object.fromEntries(axes.map((a) => [a.name, a.label])), config: 'Config',
  }
}

/** The templates a workflow can name: id and display name, as GET /templates lists them. */
export const JOB_TEMPLATES: readonly { readonly id: string; readonly name: string }[] = templateCatalog.map((t) => ({ id: t.id, name: t.displayName }))

/** A template key the form refuses before the runtime sees it: only the known templates are offered. */
export function templateProblem(key: string): ErrorDetail | undefined {
  return JOB_TEMPLATES.some((t) => t.id === key) ? undefined : { param: 'templateKey', problem: 'not a known template' }
}

const quoted = (problem: string) => /"([^"]*)"/.exec(problem)?.[1]
const detail = (problem: string) => problem.trim().replace(/[.]$/, '')

/** The words of the Create workflow form; a problem with the boundary as a whole shows under its first axis. */
export function jobWords(axes: readonly BoundaryAxis[]): FormWords {
  const fields = jobFields(axes)
  const fieldOf: Readonly<Record<string, string>> = { schedule: 'cron', 'schedule.cron': 'cron', 'schedule.timezone': 'timezone', ...(axes[0] ? { boundary: axes[0].name } : {}) }
  return {
    fieldOf: (param) => {
      const field = fieldOf[param] ?? param.replace(/^boundary\./, '').replace(/\..*$/, '')
      return field in fields ? field : '(form)'
    },
    message: (field, problem) => {
      const bad = quoted(problem)
      const axis = axes.find((a) => a.name === field)
      if (axis) {
        return axis.values === 'id'
          ? `Write ${axis.noun} ids as whole numbers separated by commas or spaces${bad !== undefined ? ` ("${bad}" is not one)` : ''}.`
          : `Write ${axis.noun} ${axis.key}s separated by commas or spaces, such as ${axis.example}.`
      }
      switch (field) {
        case 'name': return 'Give the workflow a name of up to 200 characters, so people can tell what it does.'
        // An empty choice reaches the schema as a validator's text; other problems (a revoked credential) say what is wrong.
        case 'credentialId': return /^Expected|required/i.test(problem) ? 'Choose the credential the workflow runs as.' : undefined
        case 'templateKey': return `Choose one of the templates: ${JOB_TEMPLATES.map((t) => t.id).join(', ')}.`
        case 'cron': return `Write five fields: minute, hour, day of month, month and day of week; 30 2 * * * is 02:30 every day (here: ${detail(problem)}).`
        case 'timezone': return `Write an IANA time zone name such as Europe/Berlin, America/New_York or UTC${bad !== undefined ? ` ("${bad}" is not one)` : ''}.`
        case 'config': return 'Write the config as a JSON object, such as {"destination": "warehouse"}, or leave it empty.'
        default: return undefined
      }
    },
  }
}
