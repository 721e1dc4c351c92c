// testDatabase() hands out copies of one migrated database (test/helpers/migrated-template.ts).
// A copy must be what migrating gives: the same tables, columns and indexes, the same
// recorded migrations and schema steps, nothing left for the start-up's reconciliation, and
// every copy its own (a write to one is not seen in another).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { emptyTestDatabase, PG_URL, testDatabase, testDialects } from '../helpers/test-app.js'
import { adminPool, keptCount } from '../helpers/postgres-schemas.js'
import { schemaSnapshot } from '../helpers/schema-snapshot.js'
import { migrateSchema, schemaPlan } from '../../src/store/schema-reconcile.js'
import { defaultRegistry } from '../../src/resources/index.js'
import type { Database } from '../../src/store/database.js'

const recorded = async (database: Database) => ({
  migrations: (await database.db.selectFrom('migrations').select('name').orderBy('name').execute()).map((r) => r.name),
  steps: (await database.db.selectFrom('schema_steps').selectAll().execute()).length,
})

for (const dialect of await testDialects()) {
  test(`${dialect}: a copied test database equals a migrated one, and each copy is its own`, async () => {
    const migrated = await emptyTestDatabase(dialect)
    const copy = await testDatabase(dialect)
    const other = await testDatabase(dialect)
    try {
      await migrateSchema(migrated, defaultRegistry.all)
      assert.deepEqual(await schemaSnapshot(copy), await schemaSnapshot(migrated))
      assert.deepEqual(await recorded(copy), await recorded(migrated))
      assert.ok((await recorded(copy)).steps > 0, 'the copy records the schema steps it holds')
      assert.deepEqual((await schemaPlan(copy, defaultRegistry.all)).steps, [], 'nothing left to reconcile')

      await copy.db.insertInto('meta').values({ key: 'only-in-copy', value: '1' }).execute()
      assert.equal((await other.db.selectFrom('meta').selectAll().where('key', '=', 'only-in-copy').execute()).length, 0)
    } finally {
      await Promise.all([migrated.destroy(), copy.destroy(), other.destroy()])
    }
  })
}

// PostgreSQL: a used test schema is emptied and kept for the process's next test only when
// nothing could tell it from a fresh copy (test/helpers/postgres-schemas.ts).
if ((await testDialects()).includes('postgres')) {
  /**
   * Every table's row count, every sequence's position, and the planner statistics of the table
   * `write` analyzes, read inside the database's own schema. (Only that table's: autovacuum may
   * analyze a fresh copy's `schema_steps`, whose template rows pass its threshold, at any time.)
   */
  const contents = async (database: Database) => {
    const { rows: tables } = await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1`.execute(database.db)
    const counts = Object.fromEntries(await Promise.all(tables.map(async (t) => [t.name, Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(t.name)}`.execute(database.db)).rows[0].n)])))
    const { rows: sequences } = await sql<{ name: string; position: string | null }>`SELECT sequencename AS name, last_value AS position FROM pg_sequences WHERE schemaname = current_schema() ORDER BY 1`.execute(database.db)
    const { rows: [statistics] } = await sql<{ n: string }>`SELECT count(*) AS n FROM pg_statistic s JOIN pg_class c ON c.oid = s.starelid WHERE c.relnamespace = current_schema()::regnamespace AND c.relname = 'change_log'`.execute(database.db)
    return { counts, sequences, statistics: Number(statistics.n) }
  }
  const write = async (database: Database) => {
    await database.db.insertInto('meta').values({ key: 'left-behind', value: '1' }).execute()
    await sql`INSERT INTO change_log (resource_type, resource_id, action, occurred_at, updated_at) SELECT 'entries', i, 'updated', i, i FROM generate_series(1, 300) i`.execute(database.db)
    await sql`DELETE FROM migrations WHERE name = (SELECT min(name) FROM migrations)`.execute(database.db)
    await sql`ANALYZE change_log`.execute(database.db)
  }

  test('postgres: a used test schema comes back as a fresh copy: template rows, sequence positions, no statistics', async () => {
    const fresh = await testDatabase('postgres')
    const used = await testDatabase('postgres')
    try {
      const before = keptCount(PG_URL)
      await write(used)
      assert.notDeepEqual(await contents(used), await contents(fresh))
      await used.destroy()
      assert.equal(keptCount(PG_URL), before + 1, 'kept')
      const again = await testDatabase('postgres')
      try {
        assert.equal(keptCount(PG_URL), before, 'the kept schema was handed out again')
        assert.deepEqual(await contents(again), await contents(fresh))
        assert.deepEqual(await schemaSnapshot(again), await schemaSnapshot(fresh))
        assert.deepEqual(await recorded(again), await recorded(fresh))
      } finally {
        await again.destroy()
      }
    } finally {
      await fresh.destroy()
    }
  })

  test('postgres: a test schema whose catalog changed, or whose name a test read, is dropped, not kept', async () => {
    const admin = adminPool(PG_URL)
    const exists = async (schema: string) => (await admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount === 1
    const changed = await testDatabase('postgres')
    const before = keptCount(PG_URL)
    await sql`DROP INDEX products_created`.execute(changed.db)
    await sql`CREATE INDEX products_created ON products (created_at)`.execute(changed.db)
    await changed.destroy()
    assert.equal(keptCount(PG_URL), before, 'an index redefined under its old name is a change')

    const named = await testDatabase('postgres')
    const schema = named.schema as string
    const keptBefore = keptCount(PG_URL)
    await named.destroy()
    assert.equal(keptCount(PG_URL), keptBefore)
    assert.equal(await exists(schema), false, 'dropped')
  })
}
