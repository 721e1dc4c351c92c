// Upgrading a database built by the previous schema (migrations 001–010, exactly as commit
// 6e6f4f4 built it: the stored snapshot), with records, a credential, webhook deliveries and
// change-log rows in it. The new code migrates it; afterwards every record reads the same,
// the credential still authenticates, a list cursor and a /changes cursor taken before the
// upgrade still page on, the change feed continues with no gap, and the schema equals that of
// a database the new code builds from nothing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { pino } from 'pino'
import { buildApp } from '../../src/app.js'
import { allResources, servedResources } from '../../src/resources/index.js'
import { readScopes } from '../../src/auth/scopes.js'
import { migrations, runMigrations } from '../../src/store/migrations/index.js'
import { migrateSchema } from '../../src/store/schema-reconcile.js'
import type { Database } from '../../src/store/database.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { schemaSnapshot } from '../helpers/schema-snapshot.js'
import { buildTestApp, emptyTestDatabase, testDialects, testSettings, type TestDatabase } from '../helpers/test-app.js'

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
  for (const r of servedResources) {
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

    // The old schema in use: a server that does not migrate writes records, change-log rows
    // and webhook deliveries, and a client takes cursors.
    const settings = testSettings({ PLUGIN_GATEHOUSE_DATABASE_URL: db.url, ...env })
    const old = await buildApp({ settings, database: db, logger: pino({ level: 'silent' }), migrate: false, webhookWorker: false })
    const { token } = await old.services.credentials.create({ label: 'sync worker', scopes: [...readScopes] })
    await seedSmallCatalog(old.services.store)
    for (let i = 0; i < 5; i++) await old.services.store.create('products', { type: 'shirt', title: `Shirt ${i}`, slug: `shirt-${i}` })
    const oldApi: Inject = { get: (url) => old.app.inject({ url, headers: { authorization: `Bearer ${token}` } }) }
    const recordsBefore = await everyRecord(oldApi)
    const firstPage = (await oldApi.get('/gatehouse/v1/products?limit=3')).json()
    const listCursor = firstPage.pagination?.nextCursor
    assert.ok(listCursor)
    const secondPageBefore = (await oldApi.get(`/gatehouse/v1/products?limit=3&cursor=${listCursor}`)).json().data
    const changesPage = (await oldApi.get('/gatehouse/v1/changes?limit=10')).json()
    const changesCursor = changesPage.pagination?.nextCursor
    assert.ok(changesCursor)
    const restBefore = await followChanges(oldApi, changesCursor)
    assert.ok(restBefore.length > 10)
    const deliveriesBefore = await deliveries(db)
    assert.ok(deliveriesBefore.length > 0, 'entries, products and orders queued webhook deliveries')
    await old.close()

    // The upgrade: what start-up does (buildApp migrates and reconciles).
    const upgraded = await buildTestApp({ dialect, database: db, env })
    t.after(() => upgraded.close())
    const applied = await db.db.selectFrom('migrations').select('name').orderBy('name').execute()
    assert.deepEqual(applied.map((m) => m.name), migrations.map((m) => m.name).sort())
    const api: Inject = { get: (url) => upgraded.get(url, token) }

    assert.deepEqual(await everyRecord(api), recordsBefore, 'every record reads the same, with the credential issued before')
    assert.deepEqual((await api.get(`/gatehouse/v1/products?limit=3&cursor=${listCursor}`)).json().data, secondPageBefore)
    assert.deepEqual(await deliveries(db), deliveriesBefore, 'queued deliveries are untouched')

    // Writes after the upgrade continue the same feed and the same outbox.
    const shirt = await upgraded.services.store.create('products', { type: 'shirt', title: 'After', slug: 'after-upgrade' })
    const entryId = (recordsBefore.entries[0] as { id: number }).id
    await upgraded.services.store.update('entries', entryId, { title: 'Edited after upgrade' })
    assert.deepEqual(await followChanges(api, changesCursor), [...restBefore, `products:${shirt.id}:created`, `entries:${entryId}:updated`])
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
