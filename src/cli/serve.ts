// `gatehouse serve`: the API, the admin API and, when delivery is configured, the in-process
// webhook worker (buildApp starts it), listening until SIGINT or SIGTERM, then closing
// cleanly: in-flight requests finish, workers stop, the database closes.
import { setFlagsFromString } from 'node:v8'
import { createServer } from 'node:net'
import type { Command } from 'commander'
import type { Logger } from 'pino'
import { buildApp, type GatehouseApp } from '../compose/app.js'
import { setFromCommandLine, type Settings } from '../kernel/settings.js'
import { loadCliSettings } from './context.js'
import { CliError } from './cli-error.js'
import { BASE_PATH } from '../kernel/machine-route.js'
import { MCP_PATH } from '../contract/service-info.js'
import { pruneChanges } from '../store/change-log.js'
import { wholeNumber } from './arguments.js'
import { isClusterWorker, reportListening, runPrimary, shutdownRequested } from './serve-workers.js'

/** A background job that runs inside `gatehouse serve` beside the HTTP server. */
export interface InProcessWorker {
  readonly name: string
  start(app: GatehouseApp): Promise<{ stop(): Promise<void> }>
}

const HOUR = 3_600_000

/** Deletes change-log entries older than PLUGIN_GATEHOUSE_CHANGES_RETENTION_DAYS, at start and hourly. */
const changeLogPruner: InProcessWorker = {
  name: 'change-log pruning',
  async start({ services }) {
    // Pruning changes what /changes answers (old cursors become 410): cached pages must go.
    const prune = () => pruneChanges(services.database.db, services.settings.changesRetentionDays, Date.now(), services.database.adapter)
      .then((removed) => { if (removed > 0) services.store.noteChange() })
      .catch((err: unknown) => services.logger.warn({ err }, 'change-log pruning failed'))
    await prune()
    const timer = setInterval(() => void prune(), HOUR)
    timer.unref()
    return { stop: async () => clearInterval(timer) }
  },
}

/**
 * The seam for other parts: workers listed here start after the server listens and stop
 * before it closes (the webhook delivery worker is started by buildApp itself). Deletes are
 * idempotent, so several `serve` processes may each run the pruner.
 */
export const inProcessWorkers: InProcessWorker[] = [changeLogPruner]

export interface RunningServer {
  readonly url: string
  readonly app: GatehouseApp
  /** Resolves once the server has shut down. */
  readonly closed: Promise<void>
  close(): Promise<void>
}

export interface ServeOptions {
  readonly handleSignals?: boolean
  /** The port came from `--port`: a busy port is then blamed on that option, not the setting. */
  readonly portFromOption?: boolean
  /**
   * Fastify's own "Server listening" log line (default true). `start` prints a banner with the
   * same address, and that JSON line landed in the middle of its text.
   */
  readonly logListening?: boolean
}

const portInUse = (settings: Settings, opts: ServeOptions) =>
  new CliError(`port ${settings.port} on ${settings.host} is already in use; ${opts.portFromOption ? 'choose another with --port' : 'choose another with --port or PLUGIN_GATEHOUSE_PORT'}`)

/**
 * Refuses a port already in use before anything else is done (`start` prints one-time secrets,
 * and `Try: curl …` lines that would send them to whatever holds the port). Serving checks
 * again: another process may take the port in between.
 */
export async function ensurePortFree(settings: Settings, opts: ServeOptions = {}): Promise<void> {
  const probe = createServer()
  const busy = await new Promise<boolean>((resolve) => {
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRINUSE'))
    probe.listen({ host: settings.host, port: settings.port, exclusive: true }, () => probe.close(() => resolve(false)))
  })
  if (busy) throw portInUse(settings, opts)
}

export async function serve(settings: Settings, opts: ServeOptions = {}): Promise<RunningServer> {
  const app = await buildApp({ settings })
  let address: string
  try {
    address = await listenQuietly(app, settings, opts.logListening === false)
  } catch (err) {
    await app.close().catch(() => {})
    const code = (err as { code?: string }).code
    if (code === 'EADDRINUSE') throw portInUse(settings, opts)
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL') {
      throw new CliError(`cannot listen on ${settings.host}: ${code === 'EADDRNOTAVAIL' ? 'not an address of this machine' : 'no such host'}; choose another with --host or PLUGIN_GATEHOUSE_HOST`)
    }
    throw err
  }
  const stops: { stop(): Promise<void> }[] = []
  for (const w of inProcessWorkers) stops.push(await w.start(app))
  // bin/gatehouse.js keeps V8's young generation small through start-up; from now on it may
  // grow with the load again (V8's default factor).
  setFlagsFromString('--semi-space-growth-factor=2')

  let resolveClosed: () => void = () => {}
  const closed = new Promise<void>((resolve) => { resolveClosed = resolve })
  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= (async () => {
      for (const s of stops.reverse()) await s.stop().catch(() => {})
      await app.close()
      resolveClosed()
    })()
    return closing
  }

  if (opts.handleSignals !== false) {
    const onSignal = (signal: NodeJS.Signals) => {
      // A second signal while closing means "now": leave without waiting.
      if (closing) process.exit(1)
      process.stderr.write(`\nGatehouse: ${signal} received, shutting down…\n`)
      void close().then(() => process.stderr.write('Gatehouse: stopped\n'))
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
    void closed.then(() => { process.off('SIGINT', onSignal); process.off('SIGTERM', onSignal) })
  }

  // listen() reports the bound address; with port 0 that is the port the OS chose.
  const port = new URL(address).port
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host
  return { url: `http://${host}:${port}`, app, closed, close }
}

/** Listens; `quiet`: without the info line Fastify logs then (warnings and errors still show). */
async function listenQuietly(app: GatehouseApp, settings: Settings, quiet: boolean): Promise<string> {
  const log = app.app.log as Logger
  const level = log.level
  // Only ever raised: a log level of `error` or `silent` stays as it is.
  if (quiet && log.levelVal < log.levels.values.warn) log.level = 'warn'
  try {
    return await app.app.listen({ host: settings.host, port: settings.port })
  } finally {
    log.level = level
  }
}

export function printListening(url: string, workers = 1): void {
  process.stdout.write(`Gatehouse listening on ${url}${workers > 1 ? ` (${workers} worker processes)` : ''}
  machine API  ${url}${BASE_PATH}
  admin API    ${url}/gatehouse/admin/v1
  panel        ${url}/gatehouse/cp
  API docs     ${url}/gatehouse/docs
  MCP (agents) ${url}${MCP_PATH}
  Ctrl+C stops it.
`)
}

/** Applies --host/--port before settings load, so validation and the base URL see them. */
export function applyListenOptions(opts: { host?: string; port?: number }): void {
  if (opts.host !== undefined) setFromCommandLine('HOST', opts.host)
  if (opts.port !== undefined) setFromCommandLine('PORT', String(opts.port))
}

/** `--port`, checked as typed (a bad one is named as the option, not as the setting it sets). */
export const portOption = wholeNumber(0, 65535)

export function registerServe(program: Command): void {
  program.command('serve')
    .description('serve the machine API, the admin API and the in-process webhook worker')
    .option('--host <host>', 'listen address (PLUGIN_GATEHOUSE_HOST, default 127.0.0.1)')
    .option('--port <port>', 'listen port (PLUGIN_GATEHOUSE_PORT, default 8080)', portOption)
    .option('--workers <n>', 'server processes sharing the port (use the cores; PostgreSQL recommended above 1)', wholeNumber(1, 256), 1)
    .action(async (opts: { host?: string; port?: number; workers: number }) => {
      applyListenOptions(opts)
      const settings = loadCliSettings()
      const portFromOption = opts.port !== undefined
      if (opts.workers > 1 && !isClusterWorker()) {
        process.exitCode = await runPrimary(settings, opts.workers, (url) => printListening(url, opts.workers))
        return
      }
      if (!isClusterWorker()) {
        const server = await serve(settings, { portFromOption })
        printListening(server.url)
        return server.closed
      }
      const stopRequested = shutdownRequested()
      const server = await serve(settings, { portFromOption })
      void stopRequested.then(server.close)
      reportListening(server.url)
      await server.closed
      // The channel to the primary would keep a worker alive.
      process.exit(0)
    })
}
