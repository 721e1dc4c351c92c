// Runs a `gatehouse` command inside the test process, with what a child process would have
// had of its own: its environment, its stdin, its stdout and stderr (collected), and its exit
// code. A child process costs about 1.5 s of CPU to start and load the CLI (compiled; more
// through tsx) and the suite runs a few hundred commands; in the test process the modules are
// loaded already. What only a process shows (start-up, signals, a crash's exit code, `serve`)
// stays with child processes: test/cli/helpers/cli.ts sends those there.
//
// While a command runs, `process.env`, `process.stdin`, `process.stdout` and `process.stderr`
// answer, in the command's own asynchronous context only (AsyncLocalStorage), with the
// command's; everything else in the process (node:test's own reporting on stdout, a server
// the test started) still sees the real ones. The exit code is process-wide, so commands run
// one at a time. Left alone: a logger writing to file descriptor 2 directly (the CLI's pino
// destination for warnings) reaches the real stderr, not the collected one.
import { AsyncLocalStorage } from 'node:async_hooks'
import { Readable, Writable } from 'node:stream'
import { runCli } from '../../src/cli/main.js'

export interface InProcessResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

interface Command {
  readonly env: NodeJS.ProcessEnv
  readonly stdin: Readable
  readonly stdout: Writable & { text: string }
  readonly stderr: Writable & { text: string }
}

const running = new AsyncLocalStorage<Command>()
let installed = false

/** Points the process's streams and environment at the running command's, where there is one. */
function install(): void {
  if (installed) return
  installed = true
  for (const name of ['stdin', 'stdout', 'stderr'] as const) {
    const real = Object.getOwnPropertyDescriptor(process, name)
    const get = real?.get
    if (!real || !get) throw new Error(`process.${name} is not an accessor: cannot run the CLI in process`)
    Object.defineProperty(process, name, { ...real, get() { return running.getStore()?.[name] ?? get.call(process) } })
  }
  let env = process.env
  Object.defineProperty(process, 'env', {
    configurable: true, enumerable: true,
    get: () => running.getStore()?.env ?? env,
    set: (value: NodeJS.ProcessEnv) => { env = value },
  })
}

/** A stream that keeps what is written to it, like a pipe nobody reads until the end. */
function collector(): Writable & { text: string } {
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      stream.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8')
      done()
    },
  }) as Writable & { text: string }
  stream.text = ''
  return stream
}

let queue: Promise<unknown> = Promise.resolve()

/** Runs `gatehouse <args>` in this process; `env` is the whole environment it sees. */
export function runCliInProcess(args: readonly string[], opts: { env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): Promise<InProcessResult> {
  const result = queue.then(() => runOne(args, opts))
  queue = result.catch(() => {})
  return result
}

async function runOne(args: readonly string[], opts: { env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): Promise<InProcessResult> {
  install()
  const command: Command = {
    env: { ...opts.env },
    stdin: Readable.from(opts.input ? [Buffer.from(opts.input)] : []),
    stdout: collector(),
    stderr: collector(),
  }
  const exitCodeBefore = process.exitCode
  process.exitCode = undefined
  let timer: NodeJS.Timeout | undefined
  try {
    const done = running.run(command, () => runCli([process.execPath, 'gatehouse', ...args], { embedded: true }))
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`gatehouse ${args.join(' ')} timed out (in process)\n${command.stderr.text}`)), opts.timeoutMs ?? 60_000)
    })
    await Promise.race([done, timeout])
    return { code: Number(process.exitCode ?? 0), stdout: command.stdout.text, stderr: command.stderr.text }
  } finally {
    clearTimeout(timer)
    process.exitCode = exitCodeBefore
  }
}
