// Gatehouse against its floor, in alternating runs: both servers are up at once and take turns
// (Gatehouse, floor, Gatehouse, floor…), so whatever else the machine does in those minutes
// weighs on both alike. The two answer the same pages with the same bytes, so their req/s
// compare directly; the floor rows of the main table, each over its own baseline run taken
// minutes apart, only say how far the stack itself is from a static payload.
import autocannon from 'autocannon'
import type { BenchServer } from './bench-servers.js'

export interface HeadToHeadRow {
  readonly name: string
  readonly rounds: number
  /** Mean answer size of Gatehouse's pages and of the floor's (they should agree). */
  readonly bytes: number
  readonly floorBytes: number
  /** Requests per second over all of each side's runs. */
  readonly rps: number
  readonly floorRps: number
  /** Median of each side's runs' p99, in ms. */
  readonly p99: number
  readonly floorP99: number
  readonly errors: number
  /** Share of Gatehouse's answers in its runs that came from its page cache (0 for a distinct walk). */
  readonly cached?: number
}

/** Gatehouse's page-cache counters (`/metrics` `pageCache`). */
export interface CacheCounts {
  readonly hits: number
  readonly misses: number
}

/** The share of the requests between two readings of the counters answered from the cache. */
export function cachedShare(before: CacheCounts, after: CacheCounts): number {
  const hits = after.hits - before.hits
  const all = hits + after.misses - before.misses
  return all > 0 ? hits / all : 0
}

export interface Side {
  readonly server: BenchServer
  /** Full paths (with any API prefix) of the distinct pages to cycle through. */
  readonly paths: readonly string[]
  /** Mean answer size, measured after the runs (so its requests cannot warm the page cache). */
  readonly bytes: () => Promise<number>
  /** Gatehouse's page-cache counters; the floor has none. */
  readonly counts?: () => Promise<CacheCounts>
}

type Load = (url: string, paths: readonly string[], seconds: number) => Promise<autocannon.Result>

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * `rounds` turns each of `seconds` after one warm-up run each; `settle` waits until a server
 * answers at once again, so one side's queued requests never run into the other's turn.
 */
export async function headToHead(name: string, gatehouse: Side, floor: Side, load: Load, settle: (s: BenchServer) => Promise<void>, seconds: number, rounds: number): Promise<HeadToHeadRow> {
  const runs = { g: [] as autocannon.Result[], f: [] as autocannon.Result[] }
  for (const side of [gatehouse, floor]) {
    await load(side.server.url, side.paths, 2)
    await settle(side.server)
  }
  const before = await gatehouse.counts?.()
  for (let i = 0; i < rounds; i++) {
    // The order alternates too, so neither side always runs right after the other.
    const order: Array<['g' | 'f', Side]> = i % 2 === 0 ? [['g', gatehouse], ['f', floor]] : [['f', floor], ['g', gatehouse]]
    for (const [key, side] of order) {
      runs[key].push(await load(side.server.url, side.paths, seconds))
      await settle(side.server)
    }
  }
  const after = await gatehouse.counts?.()
  const rps = (rs: autocannon.Result[]) => rs.reduce((s, r) => s + r.requests.total, 0) / rs.reduce((s, r) => s + r.duration, 0)
  return {
    name, rounds, bytes: await gatehouse.bytes(), floorBytes: await floor.bytes(),
    cached: before && after ? cachedShare(before, after) : undefined,
    rps: rps(runs.g), floorRps: rps(runs.f),
    p99: median(runs.g.map((r) => r.latency.p99)), floorP99: median(runs.f.map((r) => r.latency.p99)),
    errors: [...runs.g, ...runs.f].reduce((s, r) => s + r.errors + r.non2xx, 0),
  }
}
