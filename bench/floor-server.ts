// The floor of a distinct entries page on this machine: a bare Fastify route running the same
// keyset statement Gatehouse runs, straight through the driver (better-sqlite3, or pg with a
// named statement), with an unsigned cursor and no authentication, validation, metrics or
// cache; and the same for a distinct `/changes?limit=200` page (bench/feed-floor.ts). The bench measures it beside Gatehouse, so the gap between the two is our own cost
// and the gap between it and the baseline is the stack's.
import Fastify from 'fastify'
import pg from 'pg'
import Database from 'better-sqlite3'
import { feedStatement, FEED_LIMIT } from './feed-floor.js'
import { sqliteAdapter } from '../src/store/dialects/sqlite/adapter.js'
import { postgresAdapter } from '../src/store/dialects/postgres/adapter.js'

const [databaseUrl, port] = process.argv.slice(2)
const FIRST = 'SELECT t.id, t."updated_at", t.doc FROM "entries" t WHERE t."status" = $1 ORDER BY t."updated_at" ASC, t.id ASC LIMIT 51'
const AFTER = 'SELECT t.id, t."updated_at", t.doc FROM "entries" t WHERE t."status" = $1 AND (t."updated_at", t.id) > ($2, $3) ORDER BY t."updated_at" ASC, t.id ASC LIMIT 51'

type Page = (after: readonly [number, number] | null) => Promise<unknown[][]>
/** A feed page after a position: one row of (changes read, last position shown, renderable, items). */
type FeedPage = (after: number) => Promise<unknown[]>

function sqlitePages(file: string): { page: Page; feed: FeedPage } {
  const db = new Database(file, { readonly: true })
  db.pragma('cache_size = -65536')
  db.pragma('mmap_size = 268435456')
  const [first, after] = [FIRST, AFTER].map((text) => db.prepare(text.replace(/\$\d/g, '?')).raw(true))
  const f = feedStatement(sqliteAdapter)
  const feed = db.prepare(f.text).raw(true)
  return {
    page: async (c) => (c ? after.all('live', c[0], c[1]) : first.all('live')) as unknown[][],
    feed: async (position) => feed.get(...f.params.map((p, i) => (i === f.at ? position : p))) as unknown[],
  }
}

function postgresPages(url: string): { page: Page; feed: FeedPage } {
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  // The page keeps one plan, as Gatehouse keeps for it (src/store/record-query.ts,
  // oneIndexServes): the same statement run the same way. The feed's is planned per call in both.
  const pages = new pg.Pool({ connectionString: url, max: 10, options: '-c plan_cache_mode=force_generic_plan' })
  const doc = (text: string) => text.replace('t.doc FROM', 't.doc::text FROM')
  const f = feedStatement(postgresAdapter)
  return {
    page: async (c) => (await pages.query(c
      ? { name: 'floor_after', text: doc(AFTER), values: ['live', c[0], c[1]], rowMode: 'array' }
      : { name: 'floor_first', text: doc(FIRST), values: ['live'], rowMode: 'array' })).rows,
    feed: async (position) => (await pool.query({ name: 'floor_feed', text: f.text, values: f.params.map((p, i) => (i === f.at ? position : p)), rowMode: 'array' })).rows[0],
  }
}

const { page, feed } = databaseUrl.startsWith('sqlite:') ? sqlitePages(databaseUrl.slice('sqlite:'.length)) : postgresPages(databaseUrl)
const app = Fastify({ logger: false })
app.get('/entries', async (request, reply) => {
  const text = (request.query as { cursor?: string }).cursor
  const rows = await page(text ? JSON.parse(Buffer.from(text, 'base64url').toString()) : null)
  const last = rows[Math.min(rows.length, 50) - 1]
  const next = rows.length > 50 ? Buffer.from(JSON.stringify([Number(last[1]), Number(last[0])])).toString('base64url') : null
  const data = rows.slice(0, 50).map((r) => r[2]).join(',')
  return reply.type('application/json; charset=utf-8').send(`{"ok":true,"data":[${data}],"pagination":{"hasMore":${next !== null},"nextCursor":${JSON.stringify(next)}}}`)
})
app.get('/changes', async (request, reply) => {
  const text = (request.query as { cursor?: string }).cursor
  const position = text ? Number(Buffer.from(text, 'base64url').toString()) : 0
  const [count, lastSeq, , items] = await feed(position)
  const next = Buffer.from(String(lastSeq ?? position)).toString('base64url')
  return reply.type('application/json; charset=utf-8')
    .send(`{"ok":true,"data":[${(items as string | null) ?? ''}],"pagination":{"hasMore":${Number(count) > FEED_LIMIT},"nextCursor":"${next}"}}`)
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void app.close().then(() => process.exit(0)))
await app.listen({ host: '127.0.0.1', port: Number(port) })
