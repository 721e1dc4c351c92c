// How the CLI reports failure: one line on stderr, a non-zero exit, never a stack trace.
import { ApiError } from '../kernel/errors.js'
import { SettingsError } from '../kernel/settings.js'
import { SchemaMismatchError, SchemaStepError } from '../store/schema-reconcile.js'

/** A failure the command explains itself; `exitCode` defaults to 1. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message)
  }
}

/**
 * One line saying what went wrong, safe to print. `flags` maps a service's field names to the
 * options of the command that ran (`label` → `--label`), so a refused field is named as the
 * user typed it.
 */
export function describeFailure(err: unknown, flags: ReadonlyMap<string, string> = new Map()): string {
  if (err instanceof ApiError) {
    if (err.code === 'INVALID_REQUEST' && err.details && err.details.length > 0) {
      return err.details.map((d) => `invalid ${flags.get(d.param) ?? d.param}: ${d.problem}`).join('; ')
    }
    return err.message
  }
  // Schema problems list one line per column, each saying what the operator must do.
  if (err instanceof SettingsError || err instanceof CliError || err instanceof SchemaMismatchError || err instanceof SchemaStepError) return err.message
  // Driver errors (connection refused, disk full) name host, port or file, not secrets; only
  // the first line is shown so nothing like a stack or a query follows it.
  if (err instanceof Error) return err.message.split('\n')[0] || err.name
  return String(err)
}

/**
 * `err` with its details' fields renamed as a command's arguments name them (`webhookInterests`
 * → `<list>`), for describeFailure: arguments have no option whose name gives the mapping.
 */
export function asArguments(err: unknown, names: Readonly<Record<string, string>>): unknown {
  if (!(err instanceof ApiError) || !err.details) return err
  return new ApiError(err.code, err.message, err.details.map((d) => ({ ...d, param: names[d.param] ?? d.param })), err.headers)
}
