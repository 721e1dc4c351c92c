// Webhook delivery benchmark: 10,000 content writes turn into signed deliveries to a local
// receiver, through the same path `gatehouse serve` runs (write service → outbox in the
// write's transaction → in-process worker → HTTP). Reports deliveries per second and the
// delay from write (the event's occurredAt) to arrival at the receiver (p50, p90, p99),
// on SQLite and, when reachable, PostgreSQL. Prints a table and writes JSON to bench/results/.
//
//   npx tsx bench/webhook-delivery.ts
//   BENCH_EVENTS=10000 BENCH_BATCH=100 BENCH_CONCURRENCY=16 BENCH_DIALECTS=sqlite,postgres
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { pino } from 'pino'
import { loadSettings } from '../src/settings.js'
import { openDatabase, type Database } from '../src/store/database.js'
import { migrate } from '../src/store/migrations/index.js'
import { ContentStore } from '../src/store/content-store.js'
import { WebhookService } from '../src/webhooks/webhook-service.js'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000)
const BATCH = Number(process.env.BENCH_BATCH ?? 100)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',')
const PG_URL = process.env.BENCH_POSTGRES_URL ?? process.env.GATEHOUSE_TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/test'

interface Row {
  readonly database: string
  readonly events: number
  readonly batch: number
  readonly concurrency: number
  readonly writeSeconds: number
  readonly totalSeconds: number
  readonly deliveriesPerSecond: number
  readonly delayMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number }
  readonly duplicates: number
  /** CPU time of this process (writes, worker and receiver together) per event. */
  readonly cpuMsPerEvent: number
  readonly loadAverage: number
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]

async function pgDatabase(): Promise<{ database: Database; drop: () => Promise<void> } | undefined> {
  const schema = `bench_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 })
  try {
    await admin.connect()
    await admin.query(`CREATE SCHEMA ${schema}`)
  } catch {
    return undefined
  } finally {
    await admin.end().catch(() => {})
  }
  return {
    database: openDatabase(PG_URL, { schema }),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_URL })
      await c.connect()
      await c.query(`DROP SCHEMA ${schema} CASCADE`)
      await c.end()
    },
  }
}

async function run(dialect: string): Promise<Row | undefined> {
  let database: Database
  let drop: () => Promise<void>
  if (dialect === 'postgres') {
    const opened = await pgDatabase()
    if (!opened) {
      console.error('PostgreSQL not reachable; skipping it')
      return undefined
    }
    ;({ database, drop } = opened)
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'))
    database = openDatabase(`sqlite:${join(dir, 'bench.db')}`)
    drop = async () => rmSync(dir, { recursive: true, force: true })
  }
  await migrate(database)

  // The receiver: counts arrivals and how long after its write each event arrived.
  const delays: number[] = []
  const seen = new Set<string>()
  let duplicates = 0
  let lastArrival = 0
  let done: () => void = () => {}
  const allArrived = new Promise<void>((resolve) => { done = resolve })
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const now = Date.now()
      const event = JSON.parse(Buffer.concat(chunks).toString()) as { id: string; occurredAt: string }
      res.writeHead(200).end()
      if (seen.has(event.id)) { duplicates++; return }
      seen.add(event.id)
      delays.push(now - Date.parse(event.occurredAt))
      lastArrival = now
      if (seen.size === EVENTS) done()
    })
  })
  server.keepAliveTimeout = 5000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`

  const settings = loadSettings({ PLUGIN_GATEHOUSE_WEBHOOK_URL: url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'bench-secret', PLUGIN_GATEHOUSE_LOG_LEVEL: 'warn' })
  const logger = pino({ level: 'warn' })
  const store = new ContentStore(database)
  const webhooks = new WebhookService(database, settings, logger)
  store.addChangeHook(webhooks.outboxHook)
  webhooks.startWorker({ concurrency: CONCURRENCY })

  const cpu = process.cpuUsage()
  const started = Date.now()
  for (let b = 0; b < EVENTS / BATCH; b++) {
    await store.transaction((w) => w.createMany('products', Array.from({ length: BATCH }, (_, i) => ({ type: 'bench', title: `p${b}-${i}`, slug: `bench-${b}-${i}` }))))
  }
  const written = Date.now()
  await allArrived
  const used = process.cpuUsage(cpu)
  await webhooks.stopWorker()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await database.close()
  await drop()

  const sorted = delays.sort((a, b) => a - b)
  const total = (lastArrival - started) / 1000
  return {
    database: dialect, events: EVENTS, batch: BATCH, concurrency: CONCURRENCY,
    writeSeconds: (written - started) / 1000, totalSeconds: total, deliveriesPerSecond: Math.round(EVENTS / total),
    delayMs: { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] },
    duplicates, cpuMsPerEvent: Number(((used.user + used.system) / 1000 / EVENTS).toFixed(3)), loadAverage: Number(loadavg()[0].toFixed(2)),
  }
}

const rows: Row[] = []
for (const dialect of DIALECTS) {
  const row = await run(dialect)
  if (row) rows.push(row)
}
console.log(`\nGatehouse webhook delivery benchmark — ${EVENTS} events written in transactions of ${BATCH}, one in-process worker, concurrency ${CONCURRENCY}\n`)
console.log('| database | deliveries/s | writes took s | all delivered after s | delay p50 ms | p90 ms | p99 ms | max ms | duplicates | CPU ms/event | load avg |')
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for (const r of rows) {
  console.log(`| ${r.database} | ${r.deliveriesPerSecond} | ${r.writeSeconds.toFixed(2)} | ${r.totalSeconds.toFixed(2)} | ${r.delayMs.p50} | ${r.delayMs.p90} | ${r.delayMs.p99} | ${r.delayMs.max} | ${r.duplicates} | ${r.cpuMsPerEvent} | ${r.loadAverage} |`)
}
mkdirSync('bench/results', { recursive: true })
const file = `bench/results/webhook-delivery-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), node: process.version, rows }, null, 2))
console.log(`\nwritten to ${file}`)
