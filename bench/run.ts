// `npm run bench`: read throughput of `gatehouse serve` (compiled, as operators run it) for
// the work users do — distinct pages of lists, the change feed, detail lookups and filters
// (no page-cache hits), cached pages, two processes against one — each row followed by a
// baseline run (a bare Fastify route sending a ready entries page) whose ratio it reports;
// then a walk of distinct plain and filtered pages over 10k, 100k and 1M entries; and the
// server's RSS just after start-up, idle (20 s without requests) and after the run. SQLite by default; PostgreSQL with BENCH_DATABASE_URL.
// Prints the tables, writes bench/results/*.json and the engine's section of
// docs/performance.md.
import { writeFileSync, mkdirSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import autocannon from 'autocannon'
import { BENCH_TOKEN, startBaseline, startFloor, startGatehouse, type BenchServer } from './bench-servers.js'
import { cachedShare, headToHead, type CacheCounts } from './head-to-head.js'
import { benchDataPath, demoDatabase, entriesDatabase, TAGS, WORDS } from './bench-data.js'
import { writeReport, type BenchReport, type BenchRow } from './bench-report.js'

const SCALE = Number(process.env.BENCH_SCALE ?? 100)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
/** Alternating runs per side when Gatehouse meets its floor head to head. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
// Distinct walks hold far more pages than the page cache (256): a page is asked again only
// after hundreds of others, so none is kept (src/operations/page-cache.ts). The entries walk
// is twice as long again for the two-process row, where each process sees about half of it.
// At scale 20 there were 341 entries pages and 303 feed pages in all, too few for that
// margin (the two-process row was 62 % from the cache): the bench's tables are at scale 100.
const ENTRY_WALK = 1200
const FEED_WALK = 800
const WALK_SIZES = (process.env.BENCH_WALK_SIZES ?? '10000,100000,1000000').split(',').filter(Boolean).map(Number)
const POSTGRES = process.env.BENCH_DATABASE_URL
const ENGINE = POSTGRES ? 'postgres' : 'sqlite'
const API = '/gatehouse/v1'
const log = (line: string) => process.stderr.write(`${line}\n`)

async function get(server: BenchServer, path: string): Promise<{ data: Record<string, unknown>[]; pagination?: { hasMore?: boolean; nextCursor?: string | null } }> {
  const res = await fetch(server.url + API + path, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } })
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`)
  return res.json() as never
}

/**
 * Up to `count` distinct pages of `path` (its first page and the cursors after it). Stops at
 * the last page: the feed hands back a cursor there too (to poll from), and following it would
 * add the same empty page again and again.
 */
async function walk(server: BenchServer, path: string, count: number): Promise<string[]> {
  const out = [path]
  const nextOf = (page: Awaited<ReturnType<typeof get>>) => (page.pagination?.hasMore ? page.pagination.nextCursor : undefined)
  let cursor = nextOf(await get(server, path))
  while (out.length < count && cursor) {
    const next = `${path}&cursor=${encodeURIComponent(cursor)}`
    out.push(next)
    cursor = nextOf(await get(server, next))
  }
  return out
}

/** The floor's own walk of `path` (`/entries` or `/changes`): its first page and the unsigned cursors after it. */
async function floorWalk(server: BenchServer, path: string, count: number): Promise<string[]> {
  const out = [path]
  while (out.length < count) {
    const res = await fetch(server.url + out[out.length - 1])
    const { pagination } = (await res.json()) as { pagination: { hasMore: boolean; nextCursor: string | null } }
    if (!pagination.hasMore || !pagination.nextCursor) break
    out.push(`${path}?cursor=${pagination.nextCursor}`)
  }
  return out
}

/** Refuses a feed floor whose page differs from Gatehouse's (it would measure another query). */
async function sameFeedPage(floor: BenchServer, databaseUrl: string, gatehousePath: string): Promise<void> {
  const server = await startGatehouse(databaseUrl)
  try {
    const ours = (await get(server, gatehousePath)).data
    const position = (ours[0] as { position: number }).position - 1
    const theirs = ((await (await fetch(`${floor.url}/changes?cursor=${Buffer.from(String(position)).toString('base64url')}`)).json()) as { data: unknown[] }).data
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) throw new Error('the feed floor\'s page differs from Gatehouse\'s: it would not measure the same statement')
  } finally {
    await server.stop()
  }
}

/** Mean body size of `paths`' answers, from a sample of up to 40 of them. */
async function meanBytes(url: string, paths: readonly string[]): Promise<number> {
  const step = Math.max(1, Math.ceil(paths.length / 40))
  const sample = paths.filter((_, i) => i % step === 0)
  let total = 0
  for (const p of sample) total += (await (await fetch(url + p, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } })).arrayBuffer()).byteLength
  return Math.round(total / sample.length)
}

/**
 * One sync worker on one connection following the feed from its start, page after page, for
 * `seconds` (from the start again when it reaches the end): changes applied per second.
 * `warmFrom`: a page mid-feed the worker first follows for two seconds, untimed, so the server
 * is measured warm, as the floor is (it has served its rows by then), on pages the timed
 * walk does not ask for before the page cache has forgotten them.
 */
async function follow(url: string, first: string, next: (cursor: string) => string, seconds: number, warmFrom?: string): Promise<{ changesPerSecond: number; pagesPerSecond: number }> {
  if (warmFrom !== undefined) await follow(url, warmFrom, next, 2)
  const until = Date.now() + seconds * 1000
  const started = Date.now()
  let changes = 0
  let pages = 0
  let path = first
  while (Date.now() < until) {
    const res = await fetch(url + path, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } })
    const page = (await res.json()) as { data: unknown[]; pagination: { hasMore: boolean; nextCursor: string | null } }
    changes += page.data.length
    pages++
    path = page.pagination.hasMore && page.pagination.nextCursor ? next(page.pagination.nextCursor) : first
  }
  const elapsed = (Date.now() - started) / 1000
  return { changesPerSecond: changes / elapsed, pagesPerSecond: pages / elapsed }
}

/**
 * Where each list of paths is in its cycle: a run goes on where the last run over the same list
 * stopped. Starting each run from the first path again would ask for pages the page cache saw
 * moments before, and it would keep them and answer from them (a "distinct" row partly cached).
 */
const positions = new WeakMap<readonly string[], number>()

async function load(url: string, paths: readonly string[], seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url, connections: CONNECTIONS, duration: seconds, headers: { authorization: `Bearer ${BENCH_TOKEN}` },
    requests: [{
      setupRequest: (req: autocannon.Request) => {
        const i = positions.get(paths) ?? 0
        positions.set(paths, i + 1)
        return { ...req, path: paths[i % paths.length] }
      },
    }],
  })
}

/** Gatehouse's page-cache counters (`/metrics`), to tell how many of a run's answers came from the cache. */
async function cacheCounts(server: BenchServer): Promise<CacheCounts> {
  const res = await fetch(`${server.url}${API}/metrics`, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } })
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${await res.text()}`)
  return ((await res.json()) as { data: { pageCache: CacheCounts } }).data.pageCache
}

/**
 * Waits until the server answers at once again: requests autocannon left queued (slow ones on
 * SQLite, which answers one at a time) would otherwise run into the next measurement.
 */
async function drained(server: BenchServer): Promise<void> {
  for (let quick = 0; quick < 3;) {
    const started = Date.now()
    await fetch(`${server.url}/livez`).catch(() => undefined)
    quick = Date.now() - started < 20 ? quick + 1 : 0
  }
}

/**
 * One row: a warm-up, the measured run, then the adjacent baseline run: the bare route sending
 * a static payload of the row's mean answer size, so a ratio never compares pages of
 * different sizes.
 */
async function measure(name: string, server: BenchServer, baseline: BenchServer, paths: readonly string[], detail: string, prefix = API): Promise<BenchRow> {
  const full = paths.map((p) => prefix + p)
  const gatehouse = prefix === API
  await load(server.url, full, 2)
  await drained(server)
  const before = gatehouse ? await cacheCounts(server) : undefined
  const r = await load(server.url, full, SECONDS)
  await drained(server)
  const cached = before ? cachedShare(before, await cacheCounts(server)) : undefined
  // Sized after the runs: the sample's requests would be recent asks that the page cache keeps
  // and answers from if the runs came after them.
  const bytes = await meanBytes(server.url, full)
  const b = await load(baseline.url, [`/static?bytes=${bytes}`], SECONDS)
  const row: BenchRow = {
    name, detail, distinct: new Set(paths).size, bytes, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99,
    baselineRps: b.requests.average, ratio: r.requests.average / b.requests.average, errors: r.errors + r.non2xx, cached,
  }
  log(`${name}: ${row.rps.toFixed(0)} req/s, ${bytes} B, p50 ${row.p50} ms, p99 ${row.p99} ms, ratio ${row.ratio.toFixed(3)}${cached !== undefined ? `, ${(cached * 100).toFixed(1)} % from the page cache` : ''}${row.errors ? `, ${row.errors} errors` : ''}`)
  return row
}

async function main(): Promise<void> {
  log('building dist/ (npm run build)')
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' })
  const demoUrl = await demoDatabase(POSTGRES, SCALE, log)
  const walkUrls = new Map<number, string>()
  for (const size of WALK_SIZES) walkUrls.set(size, await entriesDatabase(POSTGRES, size, log))

  const report: BenchReport = { engine: ENGINE, at: new Date().toISOString(), scale: SCALE, seconds: SECONDS, connections: CONNECTIONS, node: process.version, rows: [], walk: [], memory: {} }
  let server = await startGatehouse(demoUrl)
  // Just after start-up, and idle: V8 gives back the start-up's garbage once the process has
  // allocated little for a while (its memory reducer runs about 8 s after the last collection).
  await new Promise((r) => setTimeout(r, 2000))
  report.memory.startupRssMb = server.rssMb()
  await new Promise((r) => setTimeout(r, 18_000))
  report.memory.idleRssMb = server.rssMb()

  // Paths, collected before any measurement.
  const entryPages = await walk(server, '/entries?limit=50', ENTRY_WALK)
  const feedPages = await walk(server, '/changes?limit=200', FEED_WALK)
  const entries = (await Promise.all(entryPages.slice(0, 12).map((p) => get(server, p)))).flatMap((page) => page.data)
  const details = entries.slice(0, 600).map((e) => `/entries/show?slug=${encodeURIComponent(String(e.slug))}&section=${encodeURIComponent(String(e.section))}`)
  const products = (await Promise.all((await walk(server, '/products?limit=200&fields=title,defaultSku', 4)).map((p) => get(server, p)))).flatMap((page) => page.data)
  const fragments = [...new Set(products.flatMap((p) => String(p.title).toLowerCase().match(/[a-z]{3}/g) ?? []))]
  // Twelve pages of each fragment at most: three made 253 pages at scale 20, fewer than the page
  // cache holds, so that row was answered from the cache (its 'from cache' column showed 95 %).
  const containsPages = (await Promise.all(fragments.slice(0, 400).map((f) => walk(server, `/products?limit=50&filter=${encodeURIComponent(`title:~${f}`)}`, 12)))).flat()
  const exactPages = products.slice(0, 600).map((p) => `/products?limit=50&filter=${encodeURIComponent(`variants.sku:${String(p.defaultSku)}`)}`)
  // The baseline's payload, repeated or cut to each row's answer size (bench/baseline-server.ts).
  const payloadFile = benchDataPath('baseline-payload.json')
  writeFileSync(payloadFile, JSON.stringify(await get(server, '/entries?limit=50')))
  const baseline = await startBaseline(payloadFile)

  const rows = report.rows
  rows.push(await measure('distinct entries pages', server, baseline, entryPages, '`/entries?limit=50&cursor=…`'))
  rows.push(await measure('distinct filtered pages, contains', server, baseline, containsPages, '`/products?filter=title:~<3 letters>` (+ cursors)'))
  rows.push(await measure('distinct filtered pages, exact', server, baseline, exactPages, '`/products?filter=variants.sku:<sku>`'))
  rows.push(await measure('distinct /changes pages', server, baseline, feedPages, '`/changes?limit=200&cursor=…`'))
  rows.push(await measure('distinct detail lookups', server, baseline, details, '`/entries/show?slug=…&section=…`'))
  rows.push(await measure('cached page, entries', server, baseline, ['/entries?limit=50'], '`/entries?limit=50` repeated'))
  rows.push(await measure('cached page, filtered products', server, baseline, ['/products?limit=50&filter=hasUnlimitedStock:false,title:~a'], '`/products?filter=hasUnlimitedStock:false,title:~a` repeated'))
  report.memory.afterRunRssMb = server.rssMb()
  await server.stop()

  // One sync worker following the feed, on a server that has served nothing else since start
  // but the worker's own warm-up.
  server = await startGatehouse(demoUrl)
  const midFeed = (pages: readonly string[]) => pages[Math.floor(pages.length / 2)]
  report.follow = { gatehouse: await follow(server.url, `${API}/changes?limit=200`, (c) => `${API}/changes?limit=200&cursor=${encodeURIComponent(c)}`, SECONDS, `${API}${midFeed(feedPages)}`) }
  await server.stop()

  // What the stack itself allows: the same walks through a bare Fastify route and the driver.
  const floor = await startFloor(demoUrl)
  await sameFeedPage(floor, demoUrl, feedPages[1])
  const floorEntries = await floorWalk(floor, '/entries', ENTRY_WALK)
  const floorFeed = await floorWalk(floor, '/changes', FEED_WALK)
  rows.push(await measure('floor: distinct entries pages, bare Fastify and the driver', floor, baseline, floorEntries, 'the same keyset statement, no Gatehouse', ''))
  rows.push(await measure('floor: distinct /changes pages, bare Fastify and the driver', floor, baseline, floorFeed, 'the same feed statement, no Gatehouse', ''))
  report.follow.floor = await follow(floor.url, '/changes', (c) => `/changes?cursor=${c}`, SECONDS, midFeed(floorFeed))
  // Gatehouse against the floor in alternating runs, both up at once (bench/head-to-head.ts).
  server = await startGatehouse(demoUrl)
  const side = (s: BenchServer, paths: readonly string[], counts?: () => Promise<CacheCounts>) => ({ server: s, paths, bytes: () => meanBytes(s.url, paths), counts })
  report.headToHead = [
    await headToHead('distinct entries pages', side(server, entryPages.map((p) => API + p), () => cacheCounts(server)), side(floor, floorEntries), load, drained, SECONDS, ROUNDS),
    await headToHead('distinct /changes pages', side(server, feedPages.map((p) => API + p), () => cacheCounts(server)), side(floor, floorFeed), load, drained, SECONDS, ROUNDS),
  ]
  for (const h of report.headToHead) log(`${h.name} against the floor: ${(h.rps / h.floorRps).toFixed(2)} of its req/s, p99 ${(h.p99 / Math.max(h.floorP99, 1)).toFixed(2)} of its p99`)
  await server.stop()
  await floor.stop()

  if (ENGINE === 'postgres') {
    server = await startGatehouse(demoUrl, 2)
    rows.push(await measure('distinct entries pages, 2 processes', server, baseline, entryPages, '`serve --workers 2`, same walk'))
    await server.stop()
  }

  for (const [size, url] of walkUrls) {
    server = await startGatehouse(url)
    const plain = await walk(server, '/entries?limit=20', 500)
    const contains = (await Promise.all(WORDS.map((w) => walk(server, `/entries?limit=20&filter=${encodeURIComponent(`title:~${w.slice(1, 4)}`)}`, 30)))).flat()
    const exact = Array.from({ length: 500 }, (_, i) => `/entries?limit=20&filter=${encodeURIComponent(`fields.tagIds:${(i * 37) % TAGS}`)}`)
    for (const [kind, paths] of [['plain', plain], ['contains', contains], ['exact', exact]] as const) {
      const row = await measure(`${size.toLocaleString('en')} entries, ${kind}`, server, baseline, paths, '')
      report.walk.push({ size, kind, bytes: row.bytes, rps: row.rps, p50: row.p50, p99: row.p99, ratio: row.ratio, distinct: row.distinct, errors: row.errors, cached: row.cached })
    }
    await server.stop()
  }
  await baseline.stop()

  mkdirSync('bench/results', { recursive: true })
  const file = `bench/results/read-${ENGINE}-${report.at.replace(/[:.]/g, '-')}.json`
  writeFileSync(file, JSON.stringify(report, null, 2))
  console.log(writeReport(report))
  log(`wrote ${file} and the ${ENGINE} section of docs/performance.md`)
}

await main()
