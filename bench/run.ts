// `npm run bench`: seeds a large data set (100,000 entries, 20,000 products; cached in
// bench/.data), then measures read endpoints with autocannon (50 connections, 10 s each
// after a warm-up) against a bare Fastify route sending a ready payload of the same size,
// in the same run. Prints a table and writes JSON to bench/results/.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { pino } from 'pino'
import { openDatabase } from '../src/store/database.js'
import { migrate } from '../src/store/migrations/index.js'
import { ContentStore } from '../src/store/content-store.js'
import { seedDemo } from '../src/loaders/demo/demo-data.js'
import { defaultRegistry } from '../src/resources/index.js'

const SCALE = Number(process.env.BENCH_SCALE ?? 100)
const DURATION = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const DB_DIR = 'bench/.data'
const DB_URL = process.env.BENCH_DATABASE_URL ?? `sqlite:${DB_DIR}/bench-scale${SCALE}.db`
const TOKEN = 'bench-token'

async function ensureSeeded(): Promise<void> {
  if (DB_URL.startsWith('sqlite:') && existsSync(DB_URL.slice(7))) return
  mkdirSync(DB_DIR, { recursive: true })
  const database = openDatabase(DB_URL)
  await migrate(database)
  const started = Date.now()
  let last = 0
  const result = await seedDemo(new ContentStore(database, defaultRegistry), {
    scale: SCALE,
    onProgress: (done, total) => {
      if (Date.now() - last > 2000) { last = Date.now(); process.stderr.write(`seeding ${done}/${total}\n`) }
    },
  })
  console.error(`seeded ${result.total} records in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  await database.close()
}

function startServer(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/server.ts', ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    child.stdout?.on('data', (chunk: Buffer) => {
      const m = /listening (\d+)/.exec(chunk.toString())
      if (m) resolve({ child, port: Number(m[1]) })
    })
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
}

async function load(url: string, seconds: number, paths?: readonly string[]): Promise<autocannon.Result> {
  let i = 0
  return autocannon({
    url, connections: CONNECTIONS, duration: seconds, headers: { authorization: `Bearer ${TOKEN}` },
    ...(paths ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, path: paths[i++ % paths.length] }) }] } : {}),
  })
}

interface Row { name: string; path: string; rps: number; p50: number; p99: number; errors: number; non2xx: number; bytes: number; ratio?: number; baselineRps?: number; baselineP99?: number }

async function main(): Promise<void> {
  const log = pino({ level: 'info' })
  await ensureSeeded()
  const app = await startServer(['app', DB_URL])
  const base = `http://127.0.0.1:${app.port}/gatehouse/v1`
  const probe = async (path: string) => {
    const res = await fetch(base + path, { headers: { authorization: `Bearer ${TOKEN}` } })
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`)
    return res.text()
  }
  const entriesPage = await probe('/entries?limit=50')
  const slug = JSON.parse(entriesPage).data[7].slug as string
  const cases: { name: string; path: string }[] = [
    { name: 'entries list', path: '/entries?limit=50' },
    { name: 'products projected', path: '/products?limit=50&fields=id,title,totalStock' },
    { name: 'products filtered', path: '/products?limit=50&filter=hasUnlimitedStock:false,title:~a' },
    { name: 'entry detail', path: `/entries/show?slug=${encodeURIComponent(slug)}` },
    { name: 'changes feed', path: '/changes?limit=200' },
  ]
  for (const c of cases) await probe(c.path)
  // Distinct pages (more than the page cache holds), so every request is a real query.
  const walkPaths: string[] = []
  let cursor: string | null = null
  while (walkPaths.length < 600) {
    const page = JSON.parse(await probe(`/entries?limit=50${cursor ? `&cursor=${cursor}` : ''}`))
    cursor = page.pagination.nextCursor
    if (!cursor) break
    walkPaths.push(`/entries?limit=50&cursor=${cursor}`)
  }

  // The baseline runs right after each case and the ratio uses that adjacent run: the
  // machine is shared, and a baseline measured minutes apart would compare different loads.
  const payloadFile = join(DB_DIR, 'baseline-payload.json')
  writeFileSync(payloadFile, entriesPage)
  const baseline = await startServer(['baseline', payloadFile])
  const baselineUrl = `http://127.0.0.1:${baseline.port}/static`
  const rows: Row[] = []
  const run = async (url: string, paths?: readonly string[]) => {
    await load(url, 2, paths) // warm-up
    return load(url, DURATION, paths)
  }
  const toRow = (name: string, path: string, r: autocannon.Result): Row =>
    ({ name, path, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx, bytes: r.throughput.average / Math.max(1, r.requests.average) })
  const measure = async (name: string, url: string, path: string, paths?: readonly string[]) => {
    const row = toRow(name, path, await run(url, paths))
    const base = toRow('baseline', '/static', await run(baselineUrl))
    rows.push({ ...row, ratio: row.rps / base.rps, baselineRps: base.rps, baselineP99: base.p99 })
  }
  for (const c of cases) await measure(c.name, base + c.path, c.path)
  await measure(`entries pages, ${walkPaths.length} distinct cursors (${walkPaths.length > 256 ? 'no cache hits' : 'fewer than the cache holds'})`, base, '/entries?limit=50&cursor=…', walkPaths.map((p) => `/gatehouse/v1${p}`))
  app.child.kill()
  baseline.child.kill()

  console.log(`\nGatehouse read benchmark — ${CONNECTIONS} connections, ${DURATION} s each, scale ${SCALE}, ${DB_URL.split(':')[0]}\n`)
  console.log('Each row is followed by a baseline run (a bare Fastify route sending a ready payload the size of an entries page);')
  console.log('the ratio is to that adjacent baseline.\n')
  console.log('| endpoint | req/s | p50 ms | p99 ms | baseline req/s | ratio to baseline | errors | non-2xx |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  for (const r of rows) console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${(r.baselineRps ?? 0).toFixed(0)} | ${(r.ratio ?? 0).toFixed(2)} | ${r.errors} | ${r.non2xx} |`)
  mkdirSync('bench/results', { recursive: true })
  const file = `bench/results/read-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
  writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), scale: SCALE, connections: CONNECTIONS, seconds: DURATION, database: DB_URL.split(':')[0], rows }, null, 2))
  log.info(`wrote ${file}`)
}

await main()
