// Read statements are fragments that carry their own parameters (src/store/sql-fragment.ts):
// however they are built, each value is bound where its fragment stands in the text, on
// SQLite's positional `?` and PostgreSQL's numbered `$n` alike, and a fragment written twice
// binds the same value twice (PostgreSQL: one `$n`).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readRows } from '../../src/store/read-statement.js'
import { frag, join, param, raw, renderFragment } from '../../src/store/sql-fragment.js'
import { emptyTestDatabase, testDialects } from '../helpers/test-app.js'

const int = (v: number) => frag`CAST(${v} AS integer)`

test('placeholders are written in text order, whatever order the fragments were built in', () => {
  const late = frag`b = ${'second'}`
  const early = frag`a = ${'first'}`
  const whole = frag`SELECT 1 WHERE ${early} AND ${late} AND c IN (${join([param(1), param(true)], ', ')})${raw(' LIMIT 5')}`
  assert.deepEqual(renderFragment(whole, { numbered: false, bool: (v) => (v ? 1 : 0) }), {
    text: 'SELECT 1 WHERE a = ? AND b = ? AND c IN (?, ?) LIMIT 5',
    params: ['first', 'second', 1, 1],
  })
  assert.deepEqual(renderFragment(whole, { numbered: true, bool: (v) => v }), {
    text: 'SELECT 1 WHERE a = $1 AND b = $2 AND c IN ($3, $4) LIMIT 5',
    params: ['first', 'second', 1, true],
  })
})

test('a fragment written twice binds its values at each place: one `$n` when numbered, a `?` each when positional', () => {
  const after = param(42)
  const whole = frag`x > ${after} AND x <= ${after} + 10 AND y = ${'y'}`
  assert.deepEqual(renderFragment(whole, { numbered: true, bool: (v) => v }), { text: 'x > $1 AND x <= $1 + 10 AND y = $2', params: [42, 'y'] })
  assert.deepEqual(renderFragment(whole, { numbered: false, bool: (v) => v }), { text: 'x > ? AND x <= ? + 10 AND y = ?', params: [42, 42, 'y'] })
})

for (const dialect of await testDialects()) {
  test(`${dialect}: a statement built out of order, with a fragment used twice, reads each value where it stands`, async (t) => {
    const database = await emptyTestDatabase(dialect)
    t.after(() => database.destroy())
    // Built last to first; `shared` and `first` are written twice.
    const statement = (a: number, b: number, c: number) => {
      const third = int(c)
      const shared = int(b)
      const first = int(a)
      return frag`SELECT ${first}, ${shared}, ${third}, ${shared} + ${first}`
    }
    assert.deepEqual((await readRows(database, statement(1, 2, 3))).map((r) => r.map(Number)), [[1, 2, 3, 3]])
    // The same text with other values: the prepared statement is reused with them.
    assert.deepEqual((await readRows(database, statement(7, 8, 9))).map((r) => r.map(Number)), [[7, 8, 9, 15]])
  })
}
