// testDatabase() hands out copies of one migrated database (test/helpers/migrated-template.ts).
// A copy must be what migrating gives: the same tables, columns and indexes, the same
// recorded migrations and schema steps, nothing left for the start-up's reconciliation, and
// every copy its own (a write to one is not seen in another).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { emptyTestDatabase, testDatabase, testDialects } from '../helpers/test-app.js'
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
