// The statements the read operations run on PostgreSQL use indexes: lists, keyset pages,
// sorts, filters (column, document path, contains, q), detail lookups, owner visibility and
// the change feed's page are planned without a sequential scan of a family table or the
// change log, on tables big enough for the planner to prefer one if no index served. Each
// statement is the one the operation sends (recorded from Database.read) and is checked with
// its parameters (custom plan) and, when it is prepared once per shape, as a generic plan.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import pg from 'pg'
import { defaultRegistry, type Resource } from '../../src/resources/index.js'
import { RecordReader } from '../../src/store/record-query.js'
import { CursorCodec } from '../../src/kernel/cursor.js'
import { listRecords, type ListInput } from '../../src/operations/list-records.js'
import { showRecord } from '../../src/operations/show-record.js'
import { listChanges } from '../../src/operations/list-changes.js'
import type { ReadContext } from '../../src/operations/read-context.js'
import type { Caller } from '../../src/kernel/caller.js'
import type { Database } from '../../src/store/database.js'
import { migrateSchema } from '../../src/store/schema-reconcile.js'
import { insertTerms } from '../../src/store/record-terms.js'
import { allResources } from '../../src/resources/index.js'
import { PG_URL, testDatabase, testDialects, testSettings } from '../helpers/test-app.js'
import { planNodes } from '../helpers/query-plan.js'

const ENTRIES = 60_000
const PRODUCTS = 20_000
const BLOCKS = 20_000

/**
 * Bulk rows written with SQL: the planner needs size, the write service would take minutes.
 * The tables' secondary indexes are dropped for the writes and built again after them, with
 * the definitions they had: PostgreSQL builds an index whole in a fraction of what it spends
 * keeping it up to date row by row (the trigram and search GIN indexes update at each write),
 * 19 s of this file's 25 s before.
 */
async function seed(db: Database): Promise<void> {
  const { rows: indexes } = await sql<{ name: string; definition: string }>`
    SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
    WHERE i.schemaname = current_schema() AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.connamespace = current_schema()::regnamespace)
      AND i.tablename IN ('entries', 'products', 'content_blocks', 'change_log', 'entries_terms', 'products_terms')`.execute(db.db)
  for (const index of indexes) await sql.raw(`DROP INDEX "${index.name}"`).execute(db.db)
  await fill(db)
  for (const index of indexes) await sql.raw(index.definition).execute(db.db)
  // The schema's own tables: a bare ANALYZE reads every schema of the database, every other
  // test's and run's included.
  const { rows: tables } = await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()`.execute(db.db)
  await sql.raw(`ANALYZE ${tables.map((t) => `"${t.name}"`).join(', ')}`).execute(db.db)
}

async function fill(db: Database): Promise<void> {
  const words = `ARRAY['alpha','bravo','harbour','meadow','copper','lantern','orchid','summit','willow','ember','falcon','garnet','juniper','kestrel','lagoon','marble','nectar','quartz','raven','saffron']`
  await sql.raw(`
    INSERT INTO entries (uid, created_at, updated_at, doc, section, type, title, slug, status, author_id)
    SELECT md5('e' || i), t, t, json_build_object('id', i, 'section', s, 'type', 'post', 'title', title, 'slug', 'e-' || i, 'status', st,
        'fields', json_build_object('tagIds', json_build_array(i % 700, (i * 7) % 700), 'featured', i % 10 = 0, 'body', repeat('lorem ipsum dolor ', 8))),
      s, 'post', title, 'e-' || i, st, 1 + i % 50
    FROM generate_series(1, ${ENTRIES}) i,
      LATERAL (SELECT 1700000000000 + i * 1000 AS t, (ARRAY['news','blog','docs','pages'])[1 + i % 4] AS s,
        CASE WHEN i % 20 = 0 THEN 'pending' ELSE 'live' END AS st,
        initcap((${words})[1 + (i * 13) % 20] || ' ' || (${words})[1 + (i * 17) % 20]) || ' ' || i AS title) x`).execute(db.db)
  await sql.raw(`
    INSERT INTO products (uid, created_at, updated_at, doc, type, title, slug, status, has_unlimited_stock, total_stock, default_sku)
    SELECT md5('p' || i), t, t, json_build_object('id', i, 'type', 'shirt', 'title', title, 'slug', 'p-' || i, 'status', 'live',
        'hasUnlimitedStock', i % 9 = 0, 'totalStock', i % 40, 'defaultSku', 'SKU-' || i,
        'variants', json_build_array(json_build_object('sku', 'SKU-' || i, 'stock', i % 40), json_build_object('sku', 'SKU-' || i || '-B', 'stock', 0))),
      'shirt', title, 'p-' || i, 'live', i % 9 = 0, i % 40, 'SKU-' || i
    FROM generate_series(1, ${PRODUCTS}) i,
      LATERAL (SELECT 1700000000000 + i * 1000 AS t, initcap((${words})[1 + (i * 3) % 20]) || ' shirt ' || i AS title) x`).execute(db.db)
  await sql.raw(`
    INSERT INTO content_blocks (uid, created_at, updated_at, doc, owner_id, field_id, type)
    SELECT md5('b' || i), 1700000000000 + i * 1000, 1700000000000 + i * 1000, json_build_object('id', i, 'ownerId', 1 + i % ${ENTRIES}), 1 + i % ${ENTRIES}, 1, 'text'
    FROM generate_series(1, ${BLOCKS}) i`).execute(db.db)
  await sql.raw(`
    INSERT INTO change_log (resource_type, resource_id, action, occurred_at, updated_at)
    SELECT CASE WHEN i % 3 = 0 THEN 'products' ELSE 'entries' END, 1 + i % ${PRODUCTS}, CASE WHEN i % 50 = 0 THEN 'deleted' ELSE 'updated' END, 1700000000000 + i, 1700000000000 + i
    FROM generate_series(1, ${ENTRIES + PRODUCTS}) i`).execute(db.db)
  // The exact-filter terms of those rows, written by the code writes use.
  for (const r of [defaultRegistry.byType('entries'), defaultRegistry.byType('products')] as Resource[]) {
    for (let after = 0; ;) {
      const rows = await db.db.selectFrom(r.table).select(['id', 'updated_at', sql<string>`doc::text`.as('doc')]).where('id', '>', after).orderBy('id').limit(5000).execute()
      await insertTerms(db.db, r, rows.map((row) => ({ id: Number(row.id), updatedAt: Number(row.updated_at), doc: JSON.parse(row.doc) as Record<string, unknown> })))
      if (rows.length < 5000) break
      after = Number(rows[rows.length - 1].id)
    }
  }
}

interface Recorded { readonly text: string; readonly params: readonly unknown[]; readonly prepare: boolean }

/**
 * A read context whose database records every hot-path statement (`recorded`, emptied by the
 * caller between checks), and a caller reading entries, products, blocks and the feed.
 */
function recordingReads(db: Database): { ctx: ReadContext; caller: Caller; recorded: Recorded[] } {
  const recorded: Recorded[] = []
  const recording: Database = { ...db, read: (text, params, opts) => { recorded.push({ text, params, prepare: opts?.prepare !== false }); return db.read(text, params, opts) } }
  const ctx: ReadContext = {
    resources: defaultRegistry, reader: new RecordReader(recording), cursors: new CursorCodec(randomBytes(32)), settings: testSettings(), database: recording,
    // No workflow run is open for this caller: no read boundary.
    jobs: { readBoundary: async () => null, knownReadBoundary: () => null } as unknown as ReadContext['jobs'],
  }
  const scopes = ['entries:read', 'products:read', 'contentblocks:read', 'changes:read']
  const caller: Caller = { credentialId: 'plans', label: 'plans', source: 'managed', grantedScopes: scopes, scopes: new Set(scopes), boundaries: null }
  return { ctx, caller, recorded }
}

const familyTables = new Set([...allResources.flatMap((r) => [r.table, `${r.table}_terms`]), 'change_log'])

/** Sequential scans of family tables (or the change log) anywhere in a JSON plan. */
function seqScans(node: Record<string, unknown>, out: string[] = []): string[] {
  if (node['Node Type'] === 'Seq Scan' && familyTables.has(node['Relation Name'] as string)) out.push(node['Relation Name'] as string)
  for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) seqScans(child, out)
  return out
}

if ((await testDialects()).includes('postgres')) {
  test('postgres: list, keyset, sort, filter, detail, owner and change-feed statements use indexes', async (t) => {
    const db = await testDatabase('postgres', { poolSize: 2 })
    t.after(() => db.destroy())
    await migrateSchema(db, allResources)
    await seed(db)
    const generic = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${db.schema} -c plan_cache_mode=force_generic_plan` })
    await generic.connect()
    t.after(() => generic.end())

    const { ctx, caller, recorded } = recordingReads(db)
    const family = (type: string) => defaultRegistry.byType(type) as Resource

    const explain = async (what: string, r: Recorded, more?: (plan: Record<string, unknown>, text: string, statement: string) => void) => {
      const [[plan]] = await db.read(`EXPLAIN (FORMAT JSON) ${r.text}`, r.params, { prepare: false }) as [[{ Plan: Record<string, unknown> }[]]]
      assert.deepEqual(seqScans(plan[0].Plan), [], `${what}: sequential scan in\n${r.text}\n${JSON.stringify(plan, null, 1)}`)
      more?.(plan[0].Plan, `${what}:\n${JSON.stringify(plan, null, 1)}`, r.text)
      if (!r.prepare) return
      // Prepared once per shape: PostgreSQL may settle on the generic plan; it must use indexes too.
      const name = `plan_${randomBytes(4).toString('hex')}`
      await generic.query(`PREPARE ${name} AS ${r.text}`)
      const quote = (text: string) => `'${text.replace(/'/g, "''")}'`
      // An array as PostgreSQL's array text, which the statement's cast reads.
      const literal = (v: unknown): string => (typeof v === 'string' ? quote(v) : Array.isArray(v) ? quote(`{${v.map((e) => `"${String(e).replace(/[\\"]/g, '\\$&')}"`).join(',')}}`) : String(v))
      const args = r.params.map(literal)
      const { rows } = await generic.query<{ 'QUERY PLAN': { Plan: Record<string, unknown> }[] }>(`EXPLAIN (FORMAT JSON) EXECUTE ${name}${args.length ? `(${args.join(', ')})` : ''}`)
      await generic.query(`DEALLOCATE ${name}`)
      const gplan = rows[0]['QUERY PLAN']
      assert.deepEqual(seqScans(gplan[0].Plan), [], `${what} (generic plan): sequential scan in\n${r.text}\n${JSON.stringify(gplan, null, 1)}`)
      more?.(gplan[0].Plan, `${what} (generic plan):\n${JSON.stringify(gplan, null, 1)}`, r.text)
    }
    const check = async (what: string, run: () => Promise<unknown>, more?: (plan: Record<string, unknown>, text: string, statement: string) => void) => {
      recorded.length = 0
      await run()
      assert.ok(recorded.length > 0, `${what} ran no statement`)
      for (const r of recorded) await explain(what, r, more)
    }
    // A feed page reads a bounded range of the log's next positions (the primary key between
    // two bounds) or each type's range of the (type, seq) index; never the primary key
    // unbounded, which the planner walks when it thinks a type is spread evenly through the
    // log: every later change of the other types (14 ms a page mid-log on the bench data).
    const feedPlan = (plan: Record<string, unknown>, text: string, statement: string) => {
      // A later page also reads the retention mark (one row of meta, by key).
      if (statement.startsWith('SELECT value FROM meta ')) return
      const log = planNodes(plan).filter((n) => n['Relation Name'] === 'change_log')
      const bounded = (n: Record<string, unknown>) => n['Index Name'] === 'change_log_pkey' && /seq > .* AND \(?seq <= /.test(String(n['Index Cond']))
      assert.ok(log.length > 0 && log.every((n) => n['Index Name'] === 'change_log_type_seq' || bounded(n)), `the log read through its (type, seq) index or a bounded range of positions, in ${text}`)
    }
    // An exact filter at a document path lists its records from the terms' B-tree (in page
    // order; a term the planner expects to be rare may be read whole and sorted), reading
    // each record by id: never a GIN scan of the family that finds every match first (100–600
    // ms for a value held by 0.1% of a million entries), never a walk of its keyset index.
    const termPlan = (table: string) => (plan: Record<string, unknown>, text: string, statement: string) => {
      const nodes = planNodes(plan)
      const indexOf = (n: Record<string, unknown>) => n['Index Name'] ?? (n.Plans as Record<string, unknown>[] | undefined)?.[0]?.['Index Name']
      assert.ok(nodes.some((n) => n['Relation Name'] === `${table}_terms` && indexOf(n) === `${table}_terms_pkey`), `the terms' (term, updated_at, id) index drives ${statement}, in ${text}`)
      const reads = nodes.filter((n) => n['Relation Name'] === table)
      assert.ok(reads.length > 0 && reads.every((n) => n['Node Type'] === 'Index Scan' && n['Index Name'] === `${table}_pkey`), `each record read by id, in ${text}`)
    }
    const list = (type: string, input: ListInput) => listRecords(ctx, family(type), { limit: 50, ...input }, caller)

    await check('entries, first page', () => list('entries', {}))
    const first = await list('entries', {})
    await check('entries, keyset page', () => list('entries', { cursor: first.pagination?.nextCursor }))
    await check('entries, a section', () => list('entries', { section: 'docs' }))
    await check('entries, q', () => list('entries', { q: 'kestrel' }))
    await check('entries, filter on a column', () => list('entries', { filter: 'section:blog' }))
    await check('entries, filter contains on a search column', () => list('entries', { filter: 'title:~juniper marble' }))
    await check('entries, filter on a document path (array element)', () => list('entries', { filter: 'fields.tagIds:123' }), termPlan('entries'))
    await check('entries, filter on a document path (scalar)', () => list('entries', { filter: 'fields.featured:true' }), termPlan('entries'))
    await check('entries, filter on a document path, keyset page', async () => {
      const page = await list('entries', { filter: 'fields.tagIds:123', limit: 5 })
      assert.equal((JSON.parse(page.rawData) as unknown[]).length, 5)
      await list('entries', { filter: 'fields.tagIds:123', limit: 5, cursor: page.pagination?.nextCursor })
    }, termPlan('entries'))
    // An incremental sync's bound narrows the terms' range: older candidates are never read.
    await check('entries, filter on a document path, updatedSince', () => list('entries', { filter: 'fields.tagIds:123', updatedSince: '2023-11-15T10:00:00.000Z' }), (plan, text, statement) => {
      termPlan('entries')(plan, text, statement)
      const terms = planNodes(plan).find((n) => n['Relation Name'] === 'entries_terms')
      assert.match(String(terms?.['Index Cond'] ?? (terms?.Plans as Record<string, unknown>[] | undefined)?.[0]?.['Index Cond']), /updated_at >=/, `the bound in the terms' index condition, in ${text}`)
    })
    await check('products, sorted by title, keyset', async () => {
      const page = await list('products', { sort: 'title' })
      await list('products', { sort: 'title', cursor: page.pagination?.nextCursor })
    })
    await check('products, the issue\'s filter', () => list('products', { filter: 'hasUnlimitedStock:false,title:~a' }))
    await check('products, filter on an array path', () => list('products', { filter: 'variants.sku:SKU-1234-B' }), termPlan('products'))
    await check('products, low stock', () => list('products', { lowStock: 'true' }))
    await check('entries, detail by slug', () => showRecord(ctx, family('entries'), { slug: 'e-4242' }, caller))
    await check('content blocks of visible entries (owner visibility)', () => list('content-blocks', {}))
    await check('content blocks of one owner', () => list('content-blocks', { ownerId: 77 }))
    await check('change feed, first page with snapshots', () => listChanges(ctx, { limit: 200 }, caller), feedPlan)
    const feed = await listChanges(ctx, { limit: 200 }, caller)
    await check('change feed, later page', () => listChanges(ctx, { limit: 200, cursor: feed.pagination?.nextCursor }, caller), feedPlan)
    await check('change feed, one type', () => listChanges(ctx, { limit: 200, types: 'products' }, caller), feedPlan)
    await check('change feed, updatedSince', () => listChanges(ctx, { limit: 200, updatedSince: '2023-11-15T00:00:00.000Z' }, caller))
  })
}

test('sqlite: a change-feed page reads each type\'s (type, seq) index range and looks up documents for its own changes only', async (t) => {
  const db = await testDatabase('sqlite')
  t.after(() => db.destroy())
  // A log of three types (products every third change, blocks every fifth), documents for each.
  await sql.raw(`
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000)
    INSERT INTO change_log (resource_type, resource_id, action, occurred_at, updated_at)
    SELECT CASE WHEN i % 3 = 0 THEN 'products' WHEN i % 5 = 0 THEN 'contentblocks' ELSE 'entries' END, 1 + i % 2000, 'updated', 1700000000000 + i, 1700000000000 + i FROM n`).execute(db.db)
  await sql.raw(`
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
    INSERT INTO entries (id, uid, created_at, updated_at, doc, section, type, title, slug, status, author_id)
    SELECT i, 'e' || i, 1, 1, json_object('id', i, 'status', 'live'), 'news', 'post', 'Entry ' || i, 'e-' || i, 'live', 1 FROM n`).execute(db.db)
  await sql`ANALYZE`.execute(db.db)

  const { ctx, caller, recorded } = recordingReads(db)
  const planOf = async (input: ListInput) => {
    recorded.length = 0
    const page = await listChanges(ctx, { limit: 200, ...input }, caller)
    // A later page also reads the retention mark (one row of meta, by key).
    const feed = recorded.filter((r) => !r.text.startsWith('SELECT value FROM meta '))
    assert.equal(feed.length, 1, 'one statement a page')
    const rows = await db.read(`EXPLAIN QUERY PLAN ${feed[0].text}`, feed[0].params) as unknown[][]
    return { page, plan: rows.map((r) => String(r[3])), text: feed[0].text }
  }
  const first = await planOf({})
  for (const { plan, text } of [first, await planOf({ cursor: first.page.pagination?.nextCursor }), await planOf({ types: 'products' })]) {
    const lines = plan.join('\n')
    assert.ok(plan.some((l) => /SEARCH c USING (COVERING )?INDEX change_log_type_seq/.test(l)), `the (type, seq) index:\n${lines}`)
    assert.ok(!plan.some((l) => /PRIMARY KEY \(rowid>/.test(l)), `no walk of the whole log:\n${lines}`)
    // The log's page first; then the document lookups (the text's subqueries other than the
    // page), each once in the plan, over the page's rows. Flattened into the log's read, SQLite
    // repeated them for every row it sorted, up to a page for each type.
    assert.equal(plan[0], 'MATERIALIZE page', `the log's page first:\n${lines}`)
    const scanOfPage = plan.indexOf('SCAN c')
    const lookups = plan.flatMap((l, i) => (l.startsWith('CORRELATED SCALAR SUBQUERY') ? [i] : []))
    assert.ok(scanOfPage > 0 && lookups.every((i) => i > scanOfPage), `lookups over the page only:\n${lines}`)
    assert.equal(lookups.length, (text.match(/\(SELECT /g) ?? []).length - 1, `each lookup once:\n${lines}`)
  }
})
