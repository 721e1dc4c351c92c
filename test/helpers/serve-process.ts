// `gatehouse serve` as a real child process on a test database (a SQLite file, or a
// PostgreSQL test schema named in the URL), the way an operator runs a second machine behind
// a load balancer: its own process, pool, caches and (PostgreSQL) LISTEN connection.
// Resolves once it says it listens. Under `npm test` it runs the compiled CLI (cli-command.ts).
import { spawn } from 'node:child_process'
import { cliArgs, ROOT } from './cli-command.js'
import { cliEnv } from '../cli/helpers/cli.js'
import type { TestDatabase } from './test-app.js'

/** The database URL a separate process uses; a PostgreSQL test schema goes in as search_path. */
export function processDatabaseUrl(db: Pick<TestDatabase, 'url' | 'schema'>): string {
  if (!db.schema) return db.url
  const sep = db.url.includes('?') ? '&' : '?'
  return `${db.url}${sep}options=${encodeURIComponent(`-c search_path=${db.schema}`)}`
}

export interface ServeProcess {
  /** `http://127.0.0.1:<port>`, as the process reported it. */
  readonly base: string
  readonly pid: number
  /** Everything it wrote to stdout and stderr so far. */
  output(): string
  /** SIGTERM, then waits for it to exit (SIGKILL after 15 s). */
  stop(): Promise<void>
}

/** Starts `gatehouse serve --port <port>` (0: any free port) with `env` (rate limit off unless given). */
export async function startServeProcess(env: Record<string, string>, port = 0): Promise<ServeProcess> {
  const child = spawn(process.execPath, cliArgs(['serve', '--port', String(port)]), {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: cliEnv({ PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '0', ...env }),
  })
  let out = ''
  child.stdout?.on('data', (d: Buffer) => { out += d.toString() })
  child.stderr?.on('data', (d: Buffer) => { out += d.toString() })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    await exited
    clearTimeout(timer)
  }
  const deadline = Date.now() + 60_000
  let base: string | undefined
  while ((base = /^Gatehouse listening on (http:\/\/\S+)$/m.exec(out)?.[1]) === undefined) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop()
      throw new Error(`gatehouse serve did not start:\n${out}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return { base, pid: child.pid as number, output: () => out, stop }
}
