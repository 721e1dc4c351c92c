// `gatehouse records list TYPE` and `gatehouse records show TYPE`: the machine API's list and
// detail operations at the operator's console, with every scope (the operator can read the
// database anyway) and the same parameters, validation, paging, `fields` and `filter`.
import type { Command } from 'commander'
import { defaultRegistry, type Resource } from '../resources/index.js'
import { operatorCaller } from '../auth/credentials.js'
import { listRecords } from '../operations/list-records.js'
import { showRecord } from '../operations/show-record.js'
import { listQuerySchema, readTextInput, showQuerySchema } from '../operations/record-inputs.js'
import type { Services } from '../operations/services.js'
import { withServices } from './context.js'
import { ApiError } from '../kernel/errors.js'
import { CliError } from './cli-error.js'
import { printJson, printTable } from './output.js'

/** `--low-stock-threshold` for `lowStockThreshold`. */
const flagOf = (param: string) => '--' + param.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())
const paramOf = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

function family(services: Services, type: string): Resource {
  const r = services.resources.served.find((x) => x.type === type)
  if (!r) throw new CliError(`unknown record type "${type}"; valid: ${services.resources.served.map((x) => x.type).join(', ')}`)
  return r
}

/** Options given as `--name value`, by parameter name (commander collects unknown options as strings). */
function optionValues(args: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (let i = 0; i < args.length; i++) {
    const m = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/.exec(args[i])
    if (!m) throw new CliError(`unexpected argument "${args[i]}"`)
    const value = m[2] ?? args[++i]
    if (value === undefined) throw new CliError(`--${m[1]} needs a value`)
    out[paramOf(m[1])] = value
  }
  return out
}

function checkKnown(raw: Record<string, string>, allowed: readonly string[], type: string): void {
  const unknown = Object.keys(raw).filter((k) => !allowed.includes(k))
  if (unknown.length > 0) throw new CliError(`${unknown.map(flagOf).join(', ')}: not an option of ${type}; valid: ${allowed.map(flagOf).join(', ')}`)
}

/** A refused parameter named as the user typed it (`invalid --fields: …`), as for every other flag. */
function asFlagError(err: unknown): unknown {
  if (!(err instanceof ApiError) || err.code !== 'INVALID_REQUEST' || !err.details?.length) return err
  return new CliError(err.details.map((d) => `invalid ${flagOf(d.param)}: ${d.problem}`).join('; '))
}

const summaryOf = (item: Record<string, unknown>) =>
  String(item.title ?? item.name ?? item.username ?? item.handle ?? item.sku ?? item.number ?? item.reference ?? item.filename ?? item.slug ?? '')

/** Each served family's own list options, from its declaration (the common ones said once). */
function listOptionsHelp(): string {
  const common = ['limit', 'cursor', 'updatedSince', 'fields', 'filter', 'sort']
  const lines = defaultRegistry.served.map((r) => {
    const own = Object.keys(listQuerySchema(r).properties).filter((k) => !common.includes(k))
    return `  ${r.type.padEnd(16)} ${own.length > 0 ? own.map(flagOf).join(', ') : '(none)'}`
  })
  return `\nEvery family: ${common.map(flagOf).join(', ')}.\nAnd its own:\n${lines.join('\n')}\n`
}

export function registerRecords(program: Command): void {
  const records = program.command('records').description('read records as the machine API serves them (every scope)')

  records.command('list <type>')
    .description('one page of a family; options are the list parameters (--filter, --fields, --limit, --cursor, --status, …)')
    .option('--json', 'print the page (data and pagination) as JSON')
    .addHelpText('after', () => listOptionsHelp())
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (type: string, opts: { json?: boolean }, cmd: Command) => {
      await withServices(async ({ services }) => {
        const r = family(services, type)
        const schema = listQuerySchema(r)
        const raw = optionValues(cmd.args.slice(1))
        checkKnown(raw, Object.keys(schema.properties), type)
        const input = readTextInput(schema, raw, flagOf)
        const page = await listRecords(services, r, input, operatorCaller(services.scopes)).catch((err: unknown) => { throw asFlagError(err) })
        const data = JSON.parse(page.rawData) as Record<string, unknown>[]
        if (opts.json) return printJson({ data, pagination: page.pagination, meta: page.meta })
        // `--fields` without updatedAt leaves it out of every item: no empty column for it.
        if (data.some((d) => d.updatedAt !== undefined)) printTable(['ID', 'UPDATED', 'SUMMARY'], data.map((d) => [String(d.id ?? ''), String(d.updatedAt ?? ''), summaryOf(d)]))
        else printTable(['ID', 'SUMMARY'], data.map((d) => [String(d.id ?? ''), summaryOf(d)]))
        if (page.pagination?.hasMore) process.stderr.write(`more: --cursor ${page.pagination.nextCursor}\n`)
      })
    })

  records.command('show <type>')
    .description('one record by exactly one selector (--id N, --slug S, --sku S, … as the family declares)')
    .option('--json', 'print the record as JSON')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (type: string, opts: { json?: boolean }, cmd: Command) => {
      await withServices(async ({ services }) => {
        const r = family(services, type)
        const schema = showQuerySchema(r)
        const raw = optionValues(cmd.args.slice(1))
        checkKnown(raw, Object.keys(schema.properties), type)
        const input = readTextInput(schema, raw, flagOf)
        const selectors = (r.selectors ?? []).map((s) => s.name)
        if (selectors.filter((s) => input[s] !== undefined).length !== 1) throw new CliError(`give exactly one of ${selectors.map(flagOf).join(', ')}`)
        const item = JSON.parse((await showRecord(services, r, input, operatorCaller(services.scopes))).rawData) as Record<string, unknown>
        if (opts.json) return printJson(item)
        printTable(['FIELD', 'VALUE'], Object.entries(item).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))
      })
    })
}
