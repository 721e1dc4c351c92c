// `gatehouse workflows …`: workflow definitions and their runs (DESIGN §9), through the same
// job runtime operations as the admin API and the panel; changes are audited with the
// operator as the actor. Errors name the flag the operator typed.
import type { Command } from 'commander'
import { ApiError } from '../kernel/errors.js'
import type { Run, WorkflowView } from '../jobs/workflow.js'
import { withServices } from './context.js'
import { CliError } from './cli-error.js'
import { commaList, wholeNumber } from './arguments.js'
import { cliOperator } from './operator.js'
import { printJson, printTable } from './output.js'
import { defaultRegistry } from '../resources/index.js'
import { describeBoundary, type BoundaryAxis } from '../resources/boundary-axes.js'

// The CLI serves every declared family, so its boundary flags are the default registry's
// axes: `--boundary-<family>` (`--boundary-sections`, `--boundary-products`).
const AXES = defaultRegistry.boundaryAxes
const flagOf = (a: BoundaryAxis) => `--boundary-${a.type}`
/** Commander's property for a flag: `--boundary-global-sets` → `boundaryGlobalSets`. */
const optionKey = (a: BoundaryAxis) => flagOf(a).slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

interface CreateOptions {
  readonly name: string
  readonly template: string
  readonly credential: string
  readonly cron: string
  readonly timezone: string
  readonly config?: string
  readonly paused?: boolean
  readonly json?: boolean
  /** One list per boundary axis flag (`boundarySections`). */
  readonly [boundaryFlag: string]: string[] | string | boolean | undefined
}

/** The flag a body property came from. */
const FLAGS: readonly [RegExp, string][] = [
  [/^name$/, '--name'], [/^templateKey$/, '--template'], [/^credentialId$/, '--credential'],
  [/^schedule\.cron$/, '--cron'], [/^schedule\.timezone$/, '--timezone'], [/^schedule$/, '--cron'],
  ...AXES.map((a): [RegExp, string] => [new RegExp(`^boundary\\.${a.name}(\\.|$)`), flagOf(a)]),
  ...(AXES.length > 0 ? [[/^boundary$/, flagOf(AXES[0])] as [RegExp, string]] : []), [/^config/, '--config'], [/^status$/, '--paused'],
]

/** Runs an operation; an invalid input is reported by the flags it came from. */
async function byFlags<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'INVALID_REQUEST' || !err.details) throw err
    throw new CliError(err.details.map((d) => `invalid ${FLAGS.find(([re]) => re.test(d.param))?.[1] ?? d.param}: ${d.problem}`).join('; '))
  }
}

function ids(flag: string, values: readonly string[] | undefined): number[] | undefined {
  return values?.map((v) => {
    if (!/^[1-9]\d{0,15}$/.test(v)) throw new CliError(`invalid ${flag}: "${v}" is not a positive integer id`)
    return Number(v)
  })
}

function configOf(text: string | undefined): unknown {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new CliError('invalid --config: not valid JSON (quote it, e.g. --config \'{"destination":"s3"}\')')
  }
}

const schedule = (w: WorkflowView) => `${w.schedule.cron} (${w.schedule.timezone})`
const latest = (r: Run | null) => (r ? `${r.status} ${r.occurrence}` : 'none')
const dueText = (w: WorkflowView) => (w.overdue ? 'overdue' : w.isDue ? 'due' : '-')

function printWorkflow(w: WorkflowView): void {
  const b = w.boundary
  const rows: [string, string][] = [
    ['id', w.id], ['name', w.name], ['template', w.templateKey], ['credential', w.credentialId], ['schedule', schedule(w)],
    ['status', w.status], ['next due', w.nextDueAt ?? '-'], ['due', dueText(w)], ['latest run', latest(w.latestRun)],
    ['boundary', b ? describeBoundary(AXES, b) : 'none'],
    ['config', JSON.stringify(w.config)], ['created', w.createdAt],
  ]
  for (const [k, v] of rows) process.stdout.write(`${(k + ':').padEnd(12)}${v}\n`)
}

export function registerWorkflows(program: Command): void {
  const workflows = program.command('workflows').description('scheduled workflows: define them, pause and resume them, read their runs')

  workflows.command('list')
    .description('every workflow with its schedule, next due time, latest run and status')
    .option('--json', 'print as JSON')
    .action((opts: { json?: boolean }) => withServices(async ({ services }) => {
      const all: WorkflowView[] = []
      let after: { createdAt: number; id: string } | undefined
      for (;;) {
        const { items, hasMore } = await services.jobs.list({ after, limit: 200 })
        all.push(...items)
        const last = items[items.length - 1]
        if (!hasMore || !last) break
        after = { createdAt: Date.parse(last.createdAt), id: last.id }
      }
      if (opts.json) return printJson(all)
      printTable(['ID', 'NAME', 'TEMPLATE', 'CREDENTIAL', 'SCHEDULE', 'STATUS', 'NEXT DUE', 'DUE', 'LATEST RUN'],
        all.map((w) => [w.id, w.name, w.templateKey, w.credentialId, schedule(w), w.status, w.nextDueAt ?? '-', dueText(w), latest(w.latestRun)]))
    }))

  const create = workflows.command('create')
    .description('define a workflow that runs as a credential on a cron schedule in a time zone')
    .requiredOption('--name <name>', 'what the workflow is called')
    .requiredOption('--template <key>', 'what its workers do, e.g. scheduled-catalog-sync')
    .requiredOption('--credential <id>', 'the credential it runs as')
    .requiredOption('--cron <expression>', 'five-field cron expression, e.g. "30 2 * * *"')
    .requiredOption('--timezone <zone>', 'IANA time zone the expression is read in, e.g. Europe/Berlin')
  for (const a of AXES) create.option(`${flagOf(a)} <list>`, `read boundary: comma-separated ${a.noun} ${a.values === 'id' ? 'ids' : `${a.key}s`}`, commaList)
  create
    .option('--config <json>', 'configuration for the workers, a JSON object')
    .option('--paused', 'create it paused')
    .option('--json', 'print the workflow as JSON')
    .action((opts: CreateOptions) => withServices(async ({ services }) => {
      const given = AXES.filter((a) => opts[optionKey(a)] !== undefined)
      const boundary = given.length > 0 ? Object.fromEntries(given.map((a) => {
        const values = opts[optionKey(a)] as string[]
        return [a.name, a.values === 'id' ? ids(flagOf(a), values) as number[] : values]
      })) : undefined
      const config = configOf(opts.config)
      const w = await byFlags(() => services.jobs.create({
        name: opts.name, templateKey: opts.template, credentialId: opts.credential, schedule: { cron: opts.cron, timezone: opts.timezone },
        ...(boundary ? { boundary } : {}), ...(config !== undefined ? { config } : {}), ...(opts.paused ? { status: 'paused' } : {}),
      }, cliOperator()))
      if (opts.json) return printJson(w)
      printWorkflow(w)
    }))

  workflows.command('show')
    .description('one workflow with its state')
    .argument('<id>', 'workflow id')
    .option('--json', 'print as JSON')
    .action((id: string, opts: { json?: boolean }) => withServices(async ({ services }) => {
      const w = await services.jobs.get(id)
      if (opts.json) return printJson(w)
      printWorkflow(w)
    }))

  for (const [name, description] of [['pause', 'stop new runs (an open run may still report)'], ['resume', 'start the schedule again from now']] as const) {
    workflows.command(name)
      .description(description)
      .argument('<id>', 'workflow id')
      .option('--json', 'print the workflow as JSON')
      .action((id: string, opts: { json?: boolean }) => withServices(async ({ services }) => {
        const w = name === 'pause' ? await services.jobs.pause(id, cliOperator()) : await services.jobs.resume(id, cliOperator())
        if (opts.json) return printJson(w)
        process.stdout.write(`${w.id} (${w.name}) is now ${w.status}${w.nextDueAt ? `; next due ${w.nextDueAt}` : ''}\n`)
      }))
  }

  workflows.command('delete')
    .description('delete a workflow and its run history (the audit log keeps their record)')
    .argument('<id>', 'workflow id')
    .option('--json', 'print the result as JSON')
    .action((id: string, opts: { json?: boolean }) => withServices(async ({ services }) => {
      await services.jobs.delete(id, cliOperator())
      if (opts.json) return printJson({ deleted: id })
      process.stdout.write(`Deleted ${id}\n`)
    }))

  workflows.command('runs')
    .description("a workflow's runs, newest first")
    .argument('<id>', 'workflow id')
    .option('--limit <n>', 'how many (1..200, default 50)', wholeNumber(1, 200))
    .option('--json', 'print as JSON')
    .action((id: string, opts: { limit?: number; json?: boolean }) => withServices(async ({ services }) => {
      const { items } = await services.jobs.runs(id, opts.limit ?? 50)
      if (opts.json) return printJson(items)
      printTable(['RUN', 'OCCURRENCE', 'STATUS', 'WORKER', 'STARTED', 'FINISHED', 'LEASE UNTIL', 'SUMMARY'],
        items.map((r) => [r.id, r.occurrence, r.status, r.workerId ?? '-', r.startedAt, r.finishedAt ?? '-', r.leaseExpiresAt ?? '-', r.summary ?? '']))
    }))
}
