// Runs the real CLI against a database of its own (a temp SQLite file, or a fresh PostgreSQL
// schema named in the URL): in the test process (test/helpers/cli-in-process.ts), or as a child
// process (test/helpers/cli-command.ts: compiled under `npm test`) for the commands that keep
// running or whose start-up is the point (PROCESS_COMMANDS), and for every command with
// GATEHOUSE_TEST_CLI_PROCESS=1.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { openDatabase, type Database, type DialectName } from '../../../src/store/database.js'
import { PG_URL } from '../../helpers/test-app.js'
import { createSchema, dropSchema } from '../../helpers/postgres-schemas.js'
import { ROOT, cliArgs } from '../../helpers/cli-command.js'
import { runCliInProcess } from '../../helpers/cli-in-process.js'

export { ROOT, cliArgs } from '../../helpers/cli-command.js'

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export interface CliDatabase {
  readonly dialect: DialectName
  /** PLUGIN_GATEHOUSE_DATABASE_URL for the CLI. */
  readonly url: string
  /** Opens the same database in the test process (close it when done). */
  open(): Database
  destroy(): Promise<void>
}

export async function cliDatabase(dialect: DialectName): Promise<CliDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'))
    const url = `sqlite:${join(dir, 'cli.db')}`
    return { dialect, url, open: () => openDatabase(url), destroy: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  const schema = `t_cli_${randomBytes(5).toString('hex')}`
  await createSchema(PG_URL, schema)
  return {
    dialect,
    url: schemaUrl(schema),
    open: () => openDatabase(PG_URL, { schema, poolSize: 2 }),
    destroy: () => dropSchema(PG_URL, schema),
  }
}

/** The test server's PostgreSQL URL with every connection in `schema`: libpq-style `options` the CLI's pool passes on. */
export function schemaUrl(schema: string): string {
  return `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`
}

/** The environment without any PLUGIN_GATEHOUSE_* of the developer's, plus `env`. */
export function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PLUGIN_GATEHOUSE_')))
  return { ...base, PLUGIN_GATEHOUSE_LOG_LEVEL: 'warn', ...env }
}

/**
 * Servers and workers: they listen, take signals and end the process themselves. (`seed` ran
 * in a child process too, after `seed --demo` on PostgreSQL stalled in the test process on a
 * machine loaded with other suites; in process it now finishes in every run, on both engines.)
 */
const PROCESS_COMMANDS = new Set(['serve', 'start', 'worker'])

export function runCli(args: readonly string[], opts: { env: Record<string, string>; input?: string; timeoutMs?: number }): Promise<CliResult> {
  if (process.env.GATEHOUSE_TEST_CLI_PROCESS === '1' || PROCESS_COMMANDS.has(args[0] ?? '')) return runCliProcess(args, opts)
  return runCliInProcess(args, { ...opts, env: cliEnv(opts.env) })
}

/** `gatehouse <args>` as a child process. */
export function runCliProcess(args: readonly string[], opts: { env: Record<string, string>; input?: string; timeoutMs?: number }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliArgs(args), {
      cwd: ROOT, env: cliEnv(opts.env), stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`gatehouse ${args.join(' ')} timed out\n${stderr}`)) }, opts.timeoutMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }) })
    child.stdin.end(opts.input ?? '')
  })
}

/** Stderr must never carry a stack trace or SQL. */
export function assertNoInternals(text: string): void {
  if (/\n\s+at .+:\d+:\d+/.test(text) || /\b(SELECT|INSERT INTO|UPDATE \w+ SET)\b/.test(text)) {
    throw new Error(`output leaks internals:\n${text}`)
  }
}
