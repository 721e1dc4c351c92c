// The benchmark's tables, printed and written into docs/performance.md between the markers of
// the engine measured, so the document always shows the figures of the last run per engine.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import type { HeadToHeadRow } from './head-to-head.js'

export interface BenchRow {
  readonly name: string
  readonly detail: string
  readonly distinct: number
  /** Mean answer body size in bytes; the row's baseline sends a payload of this size. */
  readonly bytes: number
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly baselineRps: number
  readonly ratio: number
  readonly errors: number
  /** Share of the measured run's answers that came from Gatehouse's page cache (none for the floor). */
  readonly cached?: number
}

export interface FollowResult {
  readonly changesPerSecond: number
  readonly pagesPerSecond: number
}

export interface WalkRow {
  readonly size: number
  readonly kind: 'plain' | 'contains' | 'exact'
  readonly distinct: number
  readonly bytes: number
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly ratio: number
  readonly errors: number
  readonly cached?: number
}

export interface BenchReport {
  readonly engine: 'sqlite' | 'postgres'
  readonly at: string
  readonly scale: number
  readonly seconds: number
  readonly connections: number
  readonly node: string
  readonly rows: BenchRow[]
  readonly walk: WalkRow[]
  readonly memory: { startupRssMb?: number; idleRssMb?: number; afterRunRssMb?: number }
  /** One sync worker on one connection following the whole feed with `limit=200`. */
  follow?: { gatehouse?: FollowResult; floor?: FollowResult }
  /** Gatehouse and its floor in alternating runs (bench/head-to-head.ts). */
  headToHead?: HeadToHeadRow[]
}

const DOC = 'docs/performance.md'
const fixed = (n: number, digits = 0) => n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })
const share = (n: number | undefined) => (n === undefined ? '—' : `${fixed(n * 100, 1)} %`)

export function renderReport(r: BenchReport): string {
  const lines = [
    `Measured ${r.at.slice(0, 16).replace('T', ' ')} UTC by \`npm run bench\`${r.engine === 'postgres' ? ' with `BENCH_DATABASE_URL`' : ''}: ${r.engine === 'postgres' ? 'PostgreSQL' : 'SQLite'}, demo data at scale ${r.scale}, ${r.connections} connections, ${r.seconds} s per run, Node ${r.node}.`,
    '',
    'Each row\'s baseline sends a static payload of the row\'s mean answer size (bytes).',
    '',
    '| work | requests | distinct paths | bytes | req/s | p50 ms | p99 ms | baseline req/s | ratio | from cache | errors |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.rows.map((x) => `| ${x.name} | ${x.detail} | ${fixed(x.distinct)} | ${fixed(x.bytes)} | ${fixed(x.rps)} | ${x.p50} | ${x.p99} | ${fixed(x.baselineRps)} | ${fixed(x.ratio, 3)} | ${share(x.cached)} | ${x.errors} |`),
    '',
    ...(r.headToHead?.length ? [
      `Gatehouse against its floor, both up at once, in ${r.headToHead[0].rounds} alternating runs each (req/s over all runs, p99 the median run's):`,
      '',
      '| work | bytes, Gatehouse / floor | Gatehouse req/s | floor req/s | of floor | Gatehouse p99 ms | floor p99 ms | p99/floor | Gatehouse from cache | errors |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...r.headToHead.map((h) => `| ${h.name} | ${fixed(h.bytes)} / ${fixed(h.floorBytes)} | ${fixed(h.rps)} | ${fixed(h.floorRps)} | ${fixed(h.rps / h.floorRps, 2)} | ${h.p99} | ${h.floorP99} | ${fixed(h.p99 / Math.max(h.floorP99, 1), 2)} | ${share(h.cached)} | ${h.errors} |`),
      '',
    ] : []),
    ...(r.follow?.gatehouse && r.follow.floor ? [
      `One sync worker on one connection following the feed (\`/changes?limit=200\`, page after page): ${fixed(r.follow.gatehouse.changesPerSecond)} changes/s through Gatehouse, ${fixed(r.follow.floor.changesPerSecond)} through the floor (${fixed(r.follow.gatehouse.changesPerSecond / r.follow.floor.changesPerSecond, 2)} of it).`,
      '',
    ] : []),
    `Memory of the serving process (RSS): ${fixed(r.memory.startupRssMb ?? 0)} MB 2 s after start-up, ${fixed(r.memory.idleRssMb ?? 0)} MB idle (20 s after start-up, no requests), ${fixed(r.memory.afterRunRssMb ?? 0)} MB after the rows above.`,
    '',
    'Walk of distinct pages (`limit=20`) by table size: plain keyset pages, `filter=title:~…` (contains) and `filter=fields.tagIds:N` (exact, a document path).',
    '',
    '| entries | pages | distinct paths | bytes | req/s | p50 ms | p99 ms | ratio | from cache | errors |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.walk.map((w) => `| ${fixed(w.size)} | ${w.kind} | ${fixed(w.distinct)} | ${fixed(w.bytes)} | ${fixed(w.rps)} | ${w.p50} | ${w.p99} | ${fixed(w.ratio, 3)} | ${share(w.cached)} | ${w.errors} |`),
  ]
  return lines.join('\n')
}

/** Writes the report into the engine's section of docs/performance.md; returns the section. */
export function writeReport(r: BenchReport): string {
  const section = renderReport(r)
  const start = `<!-- bench:${r.engine} -->`
  const end = `<!-- /bench:${r.engine} -->`
  if (existsSync(DOC)) {
    const doc = readFileSync(DOC, 'utf8')
    const from = doc.indexOf(start)
    const to = doc.indexOf(end)
    if (from >= 0 && to > from) writeFileSync(DOC, `${doc.slice(0, from + start.length)}\n${section}\n${doc.slice(to)}`)
  }
  return section
}
