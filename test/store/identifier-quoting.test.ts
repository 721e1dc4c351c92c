// One quoting of names for DDL and reads (src/store/sql-quote.ts): a `"` in a name is
// doubled, so the name stays one identifier. Declarations refuse such names
// (test/resources/declared-names.test.ts); a family whose table name has a quote is built here
// past that check, to show the schema steps that create its tables and indexes and the reads
// of the hot path name the same table.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Type } from '@sinclair/typebox'
import { declareResource, type Resource } from '../../src/resources/declare.js'
import { createRegistry } from '../../src/resources/index.js'
import { ContentStore } from '../../src/store/content-store.js'
import { RecordReader, type RecordQuery } from '../../src/store/record-query.js'
import { migrateSchema } from '../../src/store/schema-reconcile.js'
import { sqlName } from '../../src/store/sql-quote.js'
import { emptyTestDatabase, testDialects } from '../helpers/test-app.js'

const notes = declareResource({
  type: 'notes', changeType: 'notes', table: 'notes', summary: 'Notes', scope: 'notes:read',
  columns: { code: { type: 'text', unique: true } },
  properties: { code: Type.String(), body: Type.String() },
  required: ['code', 'body'],
})
const quoted: Resource = Object.freeze({ ...notes, table: 'odd"notes' })

test('a name is quoted with its double quotes doubled', () => {
  assert.equal(sqlName('notes'), '"notes"')
  assert.equal(sqlName('odd"notes'), '"odd""notes"')
  assert.equal(sqlName('"'), '""""')
})

for (const dialect of await testDialects()) {
  test(`${dialect}: a table name holding a double quote is created, written and read as that one name`, async (t) => {
    const database = await emptyTestDatabase(dialect)
    t.after(() => database.destroy())
    await migrateSchema(database, [quoted])
    const tables = await database.adapter.describeTables(database.db, ['odd"notes', 'odd"notes_terms'])
    assert.deepEqual(tables.map((x) => x.name), ['odd"notes', 'odd"notes_terms'])
    const indexes = tables[0].indexes.map((i) => i.name)
    assert.ok(indexes.includes('odd"notes_code_unique'), indexes.join(', '))
    assert.ok(tables[0].columns.some((c) => c.name === 'code'))

    const store = new ContentStore(database, createRegistry([quoted]))
    const a = await store.create('notes', { code: 'a"1', body: 'first' })
    await store.create('notes', { code: 'b', body: 'second' })

    const reader = new RecordReader(database)
    const page = (conditions: RecordQuery['conditions']) => reader.list(quoted, { conditions, sort: 'updatedAt', desc: false, limit: 10, withSensitive: false })
    // A column test, and an exact path test driven by the terms table.
    assert.deepEqual((await page([{ kind: 'eq', column: 'code', value: 'a"1' }])).map((r) => r.id), [a.id])
    const byTerm = await page([{ kind: 'path', test: { source: 'doc', path: ['body'], op: 'exact', value: 'first' } }])
    assert.deepEqual(byTerm.map((r) => JSON.parse(r.doc).code), ['a"1'])
    assert.equal((await reader.findOne(quoted, { code: 'b' }, false))?.id, Number(a.id) + 1)
  })
}
