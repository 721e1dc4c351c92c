// The `gatehouse` command line: builds the program from one module per command group and
// runs it. Failures print one line (`gatehouse: …`) and exit non-zero, never a stack.
// Run as `tsx src/cli/main.ts …`, `npm run gatehouse -- …` or `npx gatehouse …` (bin/gatehouse.js).
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Command, CommanderError } from 'commander'
import { serviceInfo } from '../contract/service-info.js'
import { CliError, describeFailure } from './cli-error.js'
import { registerServe } from './serve.js'
import { registerStart } from './start.js'
import { registerMigrate } from './migrate.js'
import { registerSeed } from './seed.js'
import { registerImport } from './import.js'
import { registerAdmin } from './admin.js'
import { registerCredentials } from './credentials.js'
import { registerOpenapiCommand } from './openapi.js'
import { registerDiagnosticsCommand } from './diagnostics.js'
import { registerWebhookCommands } from './webhooks.js'
import { registerAuditCommands } from './audit.js'
import { registerRecords } from './records.js'
import { registerScopes } from './scopes.js'
import { registerWorkflows } from './workflows.js'

export function buildProgram(): Command {
  const program = new Command('gatehouse')
    .description('Gatehouse: a governed machine-access API for content and commerce data.\nSettings come from PLUGIN_GATEHOUSE_* environment variables and ./.env (see docs/configuration.md).')
    .version(serviceInfo.version, '-v, --version', 'print the version')
    .configureOutput({ outputError: (text, write) => write(`gatehouse: ${text.replace(/^error: /, '')}`) })
    .showSuggestionAfterError()
  for (const register of [registerStart, registerServe, registerMigrate, registerSeed, registerImport, registerCredentials, registerScopes, registerAdmin, registerWebhookCommands, registerDiagnosticsCommand, registerAuditCommands, registerRecords, registerWorkflows]) {
    register(program)
  }
  registerOpenapiCommand(program)
  return program
}

/** The long flag of each option of a command, by the name its value is passed under. */
function flagsOf(command: Command | undefined): Map<string, string> {
  return new Map((command?.options ?? []).filter((o) => o.long).map((o) => [o.attributeName(), o.long as string]))
}

/**
 * A reader that goes away (`gatehouse openapi | head -1`) closes the pipe: there is nobody
 * left to tell anything, so leave quietly instead of failing with an EPIPE stack trace.
 */
function exitQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0)
      throw err
    })
  }
}

/** The program and every command under it. */
const everyCommand = (command: Command): Command[] => [command, ...command.commands.flatMap(everyCommand)]

/**
 * Runs `gatehouse` with `argv` (node's, the script's, then the arguments) and sets
 * process.exitCode. `embedded`: the caller shares this process and runs commands one after
 * another in it (the tests' in-process runner, test/helpers/cli-in-process.ts), so commander's
 * own endings (help, version, a usage error) set the exit code instead of ending the process.
 */
export async function runCli(argv: readonly string[], opts: { embedded?: boolean } = {}): Promise<void> {
  exitQuietlyOnClosedPipe()
  let running: Command | undefined
  try {
    const program = buildProgram().hook('preAction', (_program, command) => { running = command })
    if (opts.embedded) for (const command of everyCommand(program)) command.exitOverride()
    await program.parseAsync([...argv])
  } catch (err) {
    // Commander has printed its message already; the process would have exited with its code.
    if (opts.embedded && err instanceof CommanderError) return void (process.exitCode = err.exitCode)
    process.stderr.write(`gatehouse: ${describeFailure(err, flagsOf(running))}\n`)
    process.exitCode = err instanceof CliError ? err.exitCode : 1
  }
}

const invokedDirectly = (() => {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)
  } catch {
    return false
  }
})()
if (invokedDirectly) await runCli(process.argv)
