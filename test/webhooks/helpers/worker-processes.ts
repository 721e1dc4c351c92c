// Runs `gatehouse worker` as a real separate process against a test database, the way an
// operator scales out, so tests can kill it (SIGKILL) or stop it (SIGTERM).
import { spawn, type ChildProcess } from 'node:child_process'
import { tmpdir } from 'node:os'
import { LAUNCHER, NODE_TIERING, launcherEnv } from '../../helpers/cli-command.js'

export { processDatabaseUrl } from '../../helpers/serve-process.js'

export interface WorkerProcess {
  readonly child: ChildProcess
  readonly output: () => string
  /** Resolves with the exit code (or the signal's name). */
  readonly exited: Promise<number | string>
}

/** Starts `gatehouse worker …` and resolves once it reports that it runs. */
export async function startWorkerProcess(env: Record<string, string>, args: readonly string[] = []): Promise<WorkerProcess> {
  // A scratch working directory, so no .env of the checkout leaks into the settings.
  // The `gatehouse` launcher itself (compiled under `npm test`: test/helpers/cli-command.ts).
  const child = spawn(process.execPath, [...NODE_TIERING, LAUNCHER, 'worker', ...args], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: '', ...launcherEnv, PLUGIN_GATEHOUSE_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout?.on('data', (d: Buffer) => { out += d.toString() })
  child.stderr?.on('data', (d: Buffer) => { out += d.toString() })
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  // A minute, as for `serve` (serve-process.ts): on a loaded machine 30 s were not enough to
  // start node and open the database, with nothing wrong.
  const until = Date.now() + 60_000
  while (!out.includes('delivering to')) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`worker exited early: ${out}`)
    if (Date.now() > until) {
      child.kill('SIGKILL')
      throw new Error(`worker did not start: ${out}`)
    }
    await new Promise((r) => setTimeout(r, 25))
  }
  return { child, output: () => out, exited }
}

/** Stops a worker if it still runs (SIGKILL: used in finally blocks so nothing is left behind). */
export async function killWorker(w: WorkerProcess | undefined): Promise<void> {
  if (!w || w.child.exitCode !== null || w.child.signalCode !== null) return
  w.child.kill('SIGKILL')
  await w.exited
}
