// The processes a benchmark measures: Gatehouse as operators run it (`gatehouse serve` from
// the build in dist/, bundled: bin/gatehouse.js, optionally `--workers N`), and the bench's own
// servers (the baseline, a bare Fastify route sending a ready payload, and the floor), bundled
// the same way. All are started fresh and stopped by the caller.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { bundle, loadEsbuild } from '../scripts/bundle.mjs'

export const BENCH_TOKEN = 'bench-token'

export interface BenchServer {
  readonly url: string
  readonly child: ChildProcess
  /** Resident set size of the serving process(es) in MB (workers summed with their primary). */
  rssMb(): number
  stop(): Promise<void>
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/** RSS of a process and its children (cluster workers), from /proc. */
function treeRssKb(pid: number): number {
  const status = (p: number) => { try { return readFileSync(`/proc/${p}/status`, 'utf8') } catch { return '' } }
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status(pid))?.[1] ?? 0)
  let children: number[] = []
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch { /* no children file */ }
  return rss + children.reduce((sum, c) => sum + treeRssKb(c), 0)
}

async function waitUntilLive(url: string, child: ChildProcess, path: string): Promise<void> {
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`)
    if (await fetch(url + path).then((r) => r.ok, () => false)) return
    if (Date.now() > deadline) throw new Error(`server at ${url} did not come up`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () => new Promise((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

/** `gatehouse serve` on `databaseUrl`, rate limits off, the bench token valid for every read. */
export async function startGatehouse(databaseUrl: string, workers = 1): Promise<BenchServer> {
  const port = await freePort()
  const child = spawn(process.execPath, ['bin/gatehouse.js', 'serve', '--port', String(port), ...(workers > 1 ? ['--workers', String(workers)] : [])], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      GATEHOUSE_RUN_SOURCE: '0',
      PLUGIN_GATEHOUSE_DATABASE_URL: databaseUrl,
      PLUGIN_GATEHOUSE_API_TOKEN: BENCH_TOKEN,
      PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '0',
      PLUGIN_GATEHOUSE_LOG_LEVEL: 'warn',
      PLUGIN_GATEHOUSE_HOST: '127.0.0.1',
    },
  })
  const url = `http://127.0.0.1:${port}`
  await waitUntilLive(url, child, '/livez')
  return { url, child, rssMb: () => treeRssKb(child.pid ?? 0) / 1024, stop: stopper(child) }
}

/**
 * Node's arguments for a bench script of ours: bundled as Gatehouse's CLI is (scripts/bundle.mjs),
 * so the two sides of a ratio load their code the same way (a bundled Fastify route costs
 * less CPU a request than one loaded module by module); through tsx when esbuild is missing.
 */
function scriptArgs(script: string): Promise<string[]> {
  // Bundled once per bench run: every row starts a baseline of its own.
  let args = scriptBundles.get(script)
  if (!args) scriptBundles.set(script, (args = bundleScript(script)))
  return args
}
const scriptBundles = new Map<string, Promise<string[]>>()

async function bundleScript(script: string): Promise<string[]> {
  const esbuild = await loadEsbuild()
  if (!esbuild) return ['--import', 'tsx', `bench/${script}`]
  const name = script.replace(/\.ts$/, '')
  const outdir = `bench/.data/bundles/${name}`
  await bundle(esbuild, { entry: `bench/${script}`, outdir, name })
  return [`${outdir}/${name}.js`]
}

/** A bench script of ours (`bench/<script>`) on a free port, given `arg` then the port. */
async function startScript(script: string, arg: string, livePath: string): Promise<BenchServer> {
  const port = await freePort()
  const child = spawn(process.execPath, [...(await scriptArgs(script)), arg, String(port)], { stdio: ['ignore', 'ignore', 'inherit'] })
  const url = `http://127.0.0.1:${port}`
  await waitUntilLive(url, child, livePath)
  return { url, child, rssMb: () => treeRssKb(child.pid ?? 0) / 1024, stop: stopper(child) }
}

/** The baseline: a bare Fastify route answering `payload` (bench/baseline-server.ts). */
export const startBaseline = (payloadFile: string) => startScript('baseline-server.ts', payloadFile, '/static')

/** The floor: a bare Fastify route running Gatehouse's keyset statement through the driver (bench/floor-server.ts). */
export const startFloor = (databaseUrl: string) => startScript('floor-server.ts', databaseUrl, '/entries')
