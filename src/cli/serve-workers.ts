// `gatehouse serve --workers N`: N server processes on one port (node:cluster; the primary
// hands incoming connections to the workers), so one host uses its cores. Each worker is a
// whole `serve` (API, admin API, panel, in-process webhook worker, pruner): they share
// nothing but the database, exactly like processes on several hosts behind a load balancer.
// The primary only migrates once, starts the workers, replaces one that dies and stops them
// all on SIGINT or SIGTERM.
import cluster, { type Worker } from 'node:cluster'
import { createServer } from 'node:net'
import type { Settings } from '../kernel/settings.js'
import { openStore } from './context.js'

/** Messages between the primary and its workers. */
type WorkerMessage = { readonly type: 'listening'; readonly url: string }
type PrimaryMessage = { readonly type: 'shutdown' }

/** How many workers may die within a minute before the primary gives up. */
const CRASH_LIMIT = 5

export const isClusterWorker = () => cluster.isWorker

/** In a worker: tells the primary where it listens. */
export function reportListening(url: string): void {
  process.send?.({ type: 'listening', url } satisfies WorkerMessage)
}

/**
 * In a worker, before it starts serving: resolves when the primary asks the workers to stop
 * (possibly while this one is still starting).
 */
export function shutdownRequested(): Promise<void> {
  return new Promise((resolve) => {
    process.on('message', (m: PrimaryMessage) => { if (m?.type === 'shutdown') resolve() })
  })
}

/**
 * In the primary: starts `count` workers running this same command line and resolves once
 * every worker has stopped (after a signal), with the process exit code to use.
 */
export async function runPrimary(settings: Settings, count: number, onListening: (url: string) => void): Promise<number> {
  // Once here, so the workers start on a migrated database instead of queueing on its lock.
  const store = await openStore({ settings })
  await store.close()
  // Workers share the primary's port; with port 0 each would get a random one of its own.
  if (settings.port === 0) process.env.PLUGIN_GATEHOUSE_PORT = String(await freePort(settings.host))

  let stopping = false
  let announced = false
  const listening = new Set<Worker>()
  const crashes: number[] = []
  const live = new Set<Worker>()
  let resolveDone: (code: number) => void = () => {}
  const done = new Promise<number>((resolve) => { resolveDone = resolve })
  let exitCode = 0

  const fork = () => {
    const worker = cluster.fork()
    live.add(worker)
    worker.on('message', (m: WorkerMessage) => {
      if (m?.type !== 'listening') return
      // A worker still starting when the stop was sent may have missed it (it listens for the
      // message only once its code has loaded): tell it again now that it is up.
      if (stopping) return void worker.send({ type: 'shutdown' } satisfies PrimaryMessage)
      listening.add(worker)
      if (!announced && listening.size >= count) {
        announced = true
        onListening(m.url)
      }
    })
    worker.on('exit', (code, signal) => {
      live.delete(worker)
      listening.delete(worker)
      if (stopping) {
        if (live.size === 0) resolveDone(exitCode)
        return
      }
      // An unexpected exit: replace the worker, unless they keep dying (a bad setting, a
      // database that is down), where restarting would only hide the problem.
      const now = Date.now()
      crashes.push(now)
      while (crashes.length > 0 && crashes[0] < now - 60_000) crashes.shift()
      process.stderr.write(`Gatehouse: worker ${worker.process.pid} exited (${signal ?? code})${crashes.length > CRASH_LIMIT ? '' : '; starting another'}\n`)
      if (crashes.length > CRASH_LIMIT) {
        process.stderr.write(`Gatehouse: ${crashes.length} workers exited within a minute; stopping\n`)
        exitCode = 1
        stop()
        if (live.size === 0) resolveDone(exitCode)
        return
      }
      setTimeout(() => { if (!stopping) fork() }, 1000).unref()
    })
  }

  const stop = () => {
    if (stopping) return
    stopping = true
    // A message, not a signal: workers started from a terminal get the terminal's SIGINT too,
    // and a second signal means "exit now" to a serving process.
    for (const w of live) if (w.isConnected()) w.send({ type: 'shutdown' } satisfies PrimaryMessage)
  }
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      for (const w of live) w.process.kill('SIGKILL')
      process.exit(1)
    }
    process.stderr.write(`\nGatehouse: ${signal} received, stopping ${live.size} worker(s)…\n`)
    stop()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  for (let i = 0; i < count; i++) fork()
  const code = await done
  process.off('SIGINT', onSignal)
  process.off('SIGTERM', onSignal)
  process.stderr.write('Gatehouse: stopped\n')
  return code
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
