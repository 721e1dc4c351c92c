// Webhook delivery benchmark: content writes turn into signed deliveries to a local
// receiver through the path `gatehouse serve` runs (write service → outbox in the write's
// transaction → in-process worker → HTTP). Two phases per database:
//   burst: 10,000 events written as fast as possible (transactions of 100), delivered with
//          one worker; reports deliveries per second and write-to-delivery delay;
//   paced: single-record writes at a steady rate well under capacity; reports the delay
//          a receiver sees when the queue is not backed up.
// Delay is arrival at the receiver minus the event's occurredAt (its write). Runs on SQLite
// and, when reachable, PostgreSQL. Prints a table and writes JSON to bench/results/.
//
//   npx tsx bench/webhook-delivery.ts
//   BENCH_EVENTS=10000 BENCH_BATCH=100 BENCH_CONCURRENCY=16 BENCH_PACED=300 BENCH_PACED_RATE=100 BENCH_DIALECTS=sqlite,postgres
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { pino } from 'pino'
import { loadSettings } from '../src/kernel/settings.js'
import { openDatabase, type Database } from '../src/store/database.js'
import { migrate } from '../src/store/migrations/index.js'
import { ContentStore } from '../src/store/content-store.js'
import { WebhookService } from '../src/webhooks/webhook-service.js'
import { defaultRegistry } from '../src/resources/index.js'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000)
const BATCH = Number(process.env.BENCH_BATCH ?? 100)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const PACED = Number(process.env.BENCH_PACED ?? 300)
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 100)
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',')
const PG_URL = process.env.BENCH_POSTGRES_URL ?? process.env.GATEHOUSE_TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/test'

interface Delays { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number }

interface Row {
  readonly database: string
  readonly events: number
  readonly deliveriesPerSecond: number
  readonly writeSeconds: number
  readonly deliveredAfterSeconds: number
  readonly burstDelayMs: Delays
  /** CPU time of this process (writes, worker and receiver together) per event, burst phase. */
  readonly cpuMsPerEvent: number
  readonly pacedEvents: number
  readonly pacedRate: number
  readonly pacedDelayMs: Delays
  readonly duplicates: number
  readonly loadAverage: number
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
const summary = (values: number[]): Delays => {
  const s = values.sort((a, b) => a - b)
  return { p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: s[s.length - 1] }
}

/** A receiver that records, per phase, how long after its write each event arrived. */
class Receiver {
  readonly seen = new Set<string>()
  delays: number[] = []
  duplicates = 0
  lastArrival = 0
  private want = 0
  private onDone: () => void = () => {}
  private server: Server | undefined
  url = ''

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const now = Date.now()
        const event = JSON.parse(Buffer.concat(chunks).toString()) as { id: string; occurredAt: string }
        res.writeHead(200).end()
        if (this.seen.has(event.id)) { this.duplicates++; return }
        this.seen.add(event.id)
        this.delays.push(now - Date.parse(event.occurredAt))
        this.lastArrival = now
        if (this.delays.length === this.want) this.onDone()
      })
    })
    this.server.keepAliveTimeout = 5000
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`
  }

  /** Starts a phase; resolves when `n` new events have arrived. */
  phase(n: number): Promise<void> {
    this.delays = []
    this.want = n
    return new Promise((resolve) => { this.onDone = resolve })
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server?.close(() => resolve()))
  }
}

async function open(dialect: string): Promise<{ database: Database; drop: () => Promise<void> } | undefined> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'))
    return { database: openDatabase(`sqlite:${join(dir, 'bench.db')}`), drop: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  const schema = `bench_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 })
  try {
    await admin.connect()
    await admin.query(`CREATE SCHEMA ${schema}`)
  } catch {
    console.error('PostgreSQL not reachable; skipping it')
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
  const opened = await open(dialect)
  if (!opened) return undefined
  const { database, drop } = opened
  await migrate(database)
  const receiver = new Receiver()
  await receiver.start()
  const settings = loadSettings({ PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'bench-secret', PLUGIN_GATEHOUSE_LOG_LEVEL: 'warn' })
  const store = new ContentStore(database, defaultRegistry)
  const webhooks = new WebhookService(database, settings, pino({ level: 'warn' }))
  store.addChangeHook(webhooks.outboxHook)
  webhooks.startWorker({ concurrency: CONCURRENCY })

  // Burst.
  const burst = receiver.phase(EVENTS)
  const cpu = process.cpuUsage()
  const started = Date.now()
  for (let b = 0; b < EVENTS / BATCH; b++) {
    await store.transaction((w) => w.createMany('products', Array.from({ length: BATCH }, (_, i) => ({ type: 'bench', title: `p${b}-${i}`, slug: `bench-${b}-${i}` }))))
  }
  const written = Date.now()
  await burst
  const used = process.cpuUsage(cpu)
  const burstDelays = summary(receiver.delays)
  const deliveredAfter = (receiver.lastArrival - started) / 1000

  // Paced: one record per transaction at a steady rate.
  const paced = receiver.phase(PACED)
  const gap = 1000 / PACED_RATE
  const pacedStart = Date.now()
  for (let i = 0; i < PACED; i++) {
    const due = pacedStart + i * gap
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()))
    await store.create('products', { type: 'paced', title: `q${i}`, slug: `paced-${i}` })
  }
  await paced
  const pacedDelays = summary(receiver.delays)

  await webhooks.stopWorker()
  await receiver.close()
  await database.close()
  await drop()
  return {
    database: dialect, events: EVENTS,
    deliveriesPerSecond: Math.round(EVENTS / deliveredAfter), writeSeconds: (written - started) / 1000, deliveredAfterSeconds: deliveredAfter,
    burstDelayMs: burstDelays, cpuMsPerEvent: Number(((used.user + used.system) / 1000 / EVENTS).toFixed(3)),
    pacedEvents: PACED, pacedRate: PACED_RATE, pacedDelayMs: pacedDelays, duplicates: receiver.duplicates,
    loadAverage: Number(loadavg()[0].toFixed(2)),
  }
}

const rows: Row[] = []
for (const dialect of DIALECTS) {
  const row = await run(dialect)
  if (row) rows.push(row)
}
console.log(`\nGatehouse webhook delivery benchmark — one in-process worker, concurrency ${CONCURRENCY}, local receiver`)
console.log(`burst: ${EVENTS} events written in transactions of ${BATCH}; paced: ${PACED} single writes at ${PACED_RATE}/s\n`)
console.log('| database | burst deliveries/s | writes took s | all delivered after s | burst delay p50 / p99 ms | CPU ms/event | paced delay p50 / p99 / max ms | duplicates | load avg |')
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
for (const r of rows) {
  console.log(`| ${r.database} | ${r.deliveriesPerSecond} | ${r.writeSeconds.toFixed(2)} | ${r.deliveredAfterSeconds.toFixed(2)} | ${r.burstDelayMs.p50} / ${r.burstDelayMs.p99} | ${r.cpuMsPerEvent} | ${r.pacedDelayMs.p50} / ${r.pacedDelayMs.p99} / ${r.pacedDelayMs.max} | ${r.duplicates} | ${r.loadAverage} |`)
}
mkdirSync('bench/results', { recursive: true })
const file = `bench/results/webhook-delivery-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), node: process.version, concurrency: CONCURRENCY, batch: BATCH, rows }, null, 2))
console.log(`\nwritten to ${file}`)
