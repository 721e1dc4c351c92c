// `npx tsx bench/compare-builds.ts <blocks> <checkout>...`: Gatehouse's own CPU per request for
// several builds (each checkout's compiled dist/), in one process through inject (no sockets),
// small blocks of requests taking turns between builds, so load from elsewhere on the machine
// weighs on each build alike. Made to answer "did this refactoring cost anything?" on a shared
// machine, where the bench's throughput moves with the neighbours: the median block is steady
// to a few percent (docs/performance.md).
//
// Each checkout needs `node scripts/build.mjs` run in it and a database it can serve: DB=<url>
// for all, or the URL in <checkout>/seeded.txt (bench/bench-data.ts's demoDatabase makes one).
// ONLY=entries,changes,detail picks the rows. The figures include the inject client's own cost,
// which is the same for every build.
import { existsSync, readFileSync } from 'node:fs'
import { basename, resolve } from 'node:path'

interface Built { app: { inject(o: object): Promise<{ statusCode: number; body: string }>; ready(): Promise<unknown> }; close(): Promise<void> }
interface Checkout { name: string; built: Built; rows: Record<string, string[]>; at: Record<string, number>; perBlock: Record<string, number[]> }

const TOKEN = 'bench-token'
/** Requests per block: enough for a millisecond or more of CPU, few enough to take many turns. */
const BLOCK: Record<string, number> = { entries: 50, changes: 10, detail: 100 }
const CONCURRENCY = 4

const [blocksArg, ...dirs] = process.argv.slice(2)
if (!blocksArg || dirs.length === 0) {
  console.error('usage: npx tsx bench/compare-builds.ts <blocks> <checkout>...')
  process.exit(2)
}
Object.assign(process.env, { PLUGIN_GATEHOUSE_API_TOKEN: TOKEN, PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '0', PLUGIN_GATEHOUSE_LOG_LEVEL: 'silent' })

/** The build's app on its database; the entry points moved once (the layers issue), so both are tried. */
async function open(dir: string): Promise<Built> {
  const seeded = () => readFileSync(`${dir}/seeded.txt`, 'utf8').trim().replace(/^sqlite:(?!\/)/, `sqlite:${dir}/`)
  process.env.PLUGIN_GATEHOUSE_DATABASE_URL = process.env.DB ?? seeded()
  const first = (...files: string[]) => files.map((f) => `${dir}/dist/${f}`).find(existsSync) as string
  const { loadSettings } = await import(first('kernel/settings.js', 'settings.js'))
  const { buildApp } = await import(first('compose/app.js', 'app.js'))
  const built = (await buildApp({ settings: loadSettings(), webhookWorker: false })) as Built
  await built.app.ready()
  return built
}

async function get(c: Checkout, path: string): Promise<string> {
  const res = await c.built.app.inject({ method: 'GET', url: `/gatehouse/v1${path}`, headers: { authorization: `Bearer ${TOKEN}` } })
  if (res.statusCode !== 200) throw new Error(`${c.name} ${path}: ${res.statusCode} ${res.body.slice(0, 200)}`)
  return res.body
}

async function walk(c: Checkout, path: string, count: number): Promise<string[]> {
  const out = [path]
  const next = (body: string) => { const p = JSON.parse(body).pagination; return p?.hasMore ? p.nextCursor as string : undefined }
  for (let cursor = next(await get(c, path)); cursor && out.length < count;) {
    const page = `${path}&cursor=${encodeURIComponent(cursor)}`
    out.push(page)
    cursor = next(await get(c, page))
  }
  return out
}

/** One block of `row`'s requests (the next ones in its cycle); returns CPU ms per request. */
async function block(c: Checkout, row: string): Promise<number> {
  const paths = c.rows[row]
  let left = BLOCK[row]
  const before = process.cpuUsage()
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (left-- > 0) {
      c.at[row] = ((c.at[row] ?? 0) + 1) % paths.length
      await get(c, paths[c.at[row]])
    }
  }))
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000 / BLOCK[row]
}

const only = (process.env.ONLY ?? 'entries,changes,detail').split(',')
const checkouts: Checkout[] = []
for (const dir of dirs.map((d) => resolve(d))) {
  const c: Checkout = { name: basename(dir), built: await open(dir), rows: {}, at: {}, perBlock: {} }
  if (only.includes('entries')) c.rows.entries = await walk(c, '/entries?limit=50', 600)
  if (only.includes('changes')) c.rows.changes = await walk(c, '/changes?limit=200', 300)
  if (only.includes('detail')) {
    const items = JSON.parse(await get(c, '/entries?limit=200&fields=slug,section')).data as Array<{ slug: string; section: string | { handle: string } }>
    c.rows.detail = items.map((e) => `/entries/show?slug=${encodeURIComponent(e.slug)}&section=${encodeURIComponent(typeof e.section === 'object' ? e.section.handle : e.section)}`)
  }
  // Warm-up: every distinct request once, so each build is compiled and its statements prepared.
  for (const row of Object.keys(c.rows)) for (let i = 0; i < Math.ceil(c.rows[row].length / BLOCK[row]); i++) await block(c, row)
  checkouts.push(c)
}

for (let b = 0; b < Number(blocksArg); b++) {
  const order = b % 2 === 0 ? checkouts : [...checkouts].reverse()
  for (const row of Object.keys(checkouts[0].rows)) for (const c of order) (c.perBlock[row] ??= []).push(await block(c, row))
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]
const rows = Object.keys(checkouts[0].rows)
console.log(`| build | ${rows.map((r) => `${r}, CPU ms per request (median block)`).join(' | ')} |`)
console.log(`|---|${rows.map(() => '---:').join('|')}|`)
for (const c of checkouts) console.log(`| ${c.name} | ${rows.map((r) => median(c.perBlock[r]).toFixed(3)).join(' | ')} |`)
for (const c of checkouts) await c.built.close()
process.exit(0)
