// Upgrading a database built by the previous schema: migrations 001–010 (which build exactly
// the schema of commit 6e6f4f4: the stored snapshot) holding the rows 6e6f4f4's own code wrote
// (fixtures/data-010.json: records of every family, a credential, webhook deliveries queued
// and dead-lettered by its worker, change-log rows with an update and a delete). Rows, not
// today's write path, so the fixture stays the old database whatever declarations become.
// The new code migrates it; afterwards every record reads the same, the credential still
// authenticates, a list cursor and a /changes cursor taken before the upgrade still page on,
// the change feed and the outbox continue with no gap, and the schema equals that of a
// database the new code builds from nothing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { pino } from 'pino'
import { buildApp } from '../../src/compose/app.js'
import { allResources, defaultRegistry } from '../../src/resources/index.js'
import { migrations, runMigrations } from '../../src/store/migrations/index.js'
import { migrateSchema } from '../../src/store/schema-reconcile.js'
import { sql } from 'kysely'
import type { Database, DialectName } from '../../src/store/database.js'
import { schemaSnapshot } from '../helpers/schema-snapshot.js'
import { buildTestApp, emptyTestDatabase, testDialects, testSettings, type TestDatabase } from '../helpers/test-app.js'

interface DataFixture {
  readonly token: string
  readonly credentialId: string
  /** Last id handed out per table (sqlite_sequence where it was written). */
  readonly sequences: Readonly<Record<string, number>>
  readonly tables: Readonly<Record<string, readonly Record<string, unknown>[]>>
}

const fixture = JSON.parse(readFileSync(new URL('./fixtures/data-010.json', import.meta.url), 'utf8')) as DataFixture

/** Puts the fixture's rows in place of what the migrations inserted, ids and sequences included. */
async function loadRows(db: TestDatabase, dialect: DialectName): Promise<void> {
  const live = new Map((await db.adapter.describeTables(db.db)).map((t) => [t.name, t]))
  for (const [table, rows] of Object.entries(fixture.tables)) {
    const columns = new Map(live.get(table)?.columns.map((c) => [c.name, c]))
    // Written on SQLite, where booleans are 0 and 1.
    const convert = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).map(([k, v]) =>
      [k, columns.get(k)?.type === 'boolean' && typeof v === 'number' ? db.adapter.bool(v === 1) : v]))
    await db.db.deleteFrom(table).execute()
    await db.db.insertInto(table).values(rows.map(convert)).execute()
  }
  for (const [table, last] of Object.entries(fixture.sequences)) {
    const column = live.get(table)?.columns.find((c) => c.autoIncrement)?.name
    assert.ok(column, `${table} has an id sequence`)
    // Ids of deleted records are never handed out again: the sequences continue where they were.
    if (dialect === 'sqlite') await sql`UPDATE sqlite_sequence SET seq = ${last} WHERE name = ${table}`.execute(db.db)
    else await sql`SELECT setval(pg_get_serial_sequence(${table}, ${column}), ${last})`.execute(db.db)
  }
}

const env = {
  PLUGIN_GATEHOUSE_WEBHOOK_URL: 'http://127.0.0.1:9/hooks',
  PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'upgrade-test-secret-0123456789',
  PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true',
  PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true',
}

interface Page { data: unknown[]; pagination?: { hasMore: boolean; nextCursor: string | null } }
interface Inject { get(url: string): Promise<{ statusCode: number; json(): Page }> }

/** Every served record, as the API shows it with all read scopes. */
async function everyRecord(api: Inject): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {}
  for (const r of defaultRegistry.served) {
    const res = await api.get(`/gatehouse/v1/${r.type}?limit=200${r.status ? '&status=all' : ''}`)
    assert.equal(res.statusCode, 200, r.type)
    out[r.type] = res.json().data
  }
  return out
}

/**
 * Follows a /changes cursor to the end of the feed (the feed always hands out a cursor to
 * resume from): `type:id:action` of each change.
 */
async function followChanges(api: Inject, cursor: string): Promise<string[]> {
  const seen: string[] = []
  let next = cursor
  for (let pages = 0; pages < 50; pages++) {
    const res = await api.get(`/gatehouse/v1/changes?limit=7&cursor=${next}`)
    assert.equal(res.statusCode, 200)
    const body = res.json()
    seen.push(...(body.data as { resourceType: string; resourceId: number; action: string }[]).map((c) => `${c.resourceType}:${c.resourceId}:${c.action}`))
    if (!body.pagination?.hasMore) return seen
    next = body.pagination.nextCursor ?? ''
  }
  throw new Error('the change feed did not end within 50 pages')
}

const deliveries = (database: Database) =>
  database.db.selectFrom('webhook_deliveries').select(['id', 'event_id', 'status', 'change_seq']).orderBy('id').execute()

for (const dialect of await testDialects()) {
  test(`${dialect}: a database built by migrations 001–010, with data, upgrades with every record, credential and cursor intact`, async (t) => {
    const db: TestDatabase = await emptyTestDatabase(dialect)
    t.after(() => db.destroy())
    await runMigrations(db, migrations.filter((m) => m.name.slice(0, 3) <= '010'))
    const stored = JSON.parse(readFileSync(new URL(`./fixtures/schema-010-${dialect}.json`, import.meta.url), 'utf8')) as unknown
    assert.deepEqual(await schemaSnapshot(db), stored, 'the fixture is the schema of commit 6e6f4f4')

    await loadRows(db, dialect)

    // The old database in use: a server that does not migrate answers a client with the
    // credential 6e6f4f4 issued, which takes cursors. The stand-in for that server is today's
    // code, which reads each change's origin (migration 016, a column added to the change log
    // only), so the old database gets that one migration first; every other step runs at the
    // upgrade below, and the cursors the stand-in mints do not carry origins.
    await runMigrations(db, migrations.filter((m) => m.name.startsWith('016-')))
    const settings = testSettings({ PLUGIN_GATEHOUSE_DATABASE_URL: db.url, ...env })
    const old = await buildApp({ settings, database: db, logger: pino({ level: 'silent' }), migrate: false, webhookWorker: false })
    const token = fixture.token
    const oldApi: Inject = { get: (url) => old.app.inject({ url, headers: { authorization: `Bearer ${token}` } }) }
    const recordsBefore = await everyRecord(oldApi)
    assert.equal(recordsBefore.products.length, 7)
    const firstPage = (await oldApi.get('/gatehouse/v1/products?limit=3')).json()
    const listCursor = firstPage.pagination?.nextCursor
    assert.ok(listCursor)
    const secondPageBefore = (await oldApi.get(`/gatehouse/v1/products?limit=3&cursor=${listCursor}`)).json().data
    const changesPage = (await oldApi.get('/gatehouse/v1/changes?limit=10')).json()
    const changesCursor = changesPage.pagination?.nextCursor
    assert.ok(changesCursor)
    const restBefore = await followChanges(oldApi, changesCursor)
    assert.ok(restBefore.some((c) => /^tags:\d+:deleted$/.test(c)) && restBefore.some((c) => /^entries:\d+:updated$/.test(c)), restBefore.join(' '))
    const dlqBefore = (await oldApi.get('/gatehouse/v1/webhooks/dlq?limit=100')).json().data
    assert.ok(dlqBefore.length > 0, 'the fixture has dead letters')
    const deliveriesBefore = await deliveries(db)
    assert.deepEqual([...new Set(deliveriesBefore.map((d) => d.status))].sort(), ['failed', 'queued'])
    await old.close()

    // The upgrade: what start-up does (buildApp migrates and reconciles).
    const upgraded = await buildTestApp({ dialect, database: db, env })
    t.after(() => upgraded.close())
    const applied = await db.db.selectFrom('migrations').select('name').orderBy('name').execute()
    assert.deepEqual(applied.map((m) => m.name), migrations.map((m) => m.name).sort())
    const api: Inject = { get: (url) => upgraded.get(url, token) }

    assert.deepEqual(await everyRecord(api), recordsBefore, 'every record reads the same, with the credential issued before')
    assert.deepEqual((await api.get(`/gatehouse/v1/products?limit=3&cursor=${listCursor}`)).json().data, secondPageBefore)
    assert.deepEqual(await deliveries(db), deliveriesBefore, 'queued and dead-lettered deliveries are untouched')
    assert.deepEqual((await api.get('/gatehouse/v1/webhooks/dlq?limit=100')).json().data, dlqBefore)

    // Writes after the upgrade continue the same feed and the same outbox.
    const shirt = await upgraded.services.store.create('products', { type: 'shirt', title: 'After', slug: 'after-upgrade' })
    const tag = await upgraded.services.store.create('tags', { group: 'default', title: 'New', slug: 'new' })
    assert.equal(tag.id, fixture.sequences.tags + 1, 'the id of the tag deleted before the upgrade is not handed out again')
    const entryId = (recordsBefore.entries[0] as { id: number }).id
    await upgraded.services.store.update('entries', entryId, { title: 'Edited after upgrade' })
    assert.deepEqual(await followChanges(api, changesCursor), [...restBefore, `products:${shirt.id}:created`, `tags:${tag.id}:created`, `entries:${entryId}:updated`])
    const seqs = (await db.db.selectFrom('change_log').select('seq').orderBy('seq').execute()).map((r) => Number(r.seq))
    assert.deepEqual(seqs, seqs.map((_, i) => seqs[0] + i), 'the change log has no gap')
    const newDeliveries = (await deliveries(db)).slice(deliveriesBefore.length)
    assert.equal(newDeliveries.length, 2)
    assert.ok(newDeliveries.every((d) => Number(d.change_seq) > Math.max(...deliveriesBefore.map((x) => Number(x.change_seq)))))

    // Old and new databases do not diverge: the upgraded schema is the one built from nothing.
    const fresh = await emptyTestDatabase(dialect)
    t.after(() => fresh.destroy())
    await migrateSchema(fresh, allResources)
    assert.deepEqual(await schemaSnapshot(db), await schemaSnapshot(fresh))
  })
}
