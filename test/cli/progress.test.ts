// Progress lines say what they count and whether the total is a count or an estimate.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createProgress } from '../../src/cli/progress.js'

/** A stream that is not a terminal (CI logs): one plain line per update. */
function captured() {
  const lines: string[] = []
  const stream = { isTTY: false, write: (text: string) => { lines.push(text); return true } } as unknown as NodeJS.WriteStream
  return { lines, stream }
}

test('an estimated total is shown as one (~), then the summary gives the count', () => {
  const { lines, stream } = captured()
  const progress = createProgress('Seeding demo data', { total: 0, estimated: true, stream, lineInterval: 0 })
  progress.update(1200, 2975)
  progress.finish('2,955 records')
  assert.match(lines[0], /^Seeding demo data: ~40% \(1,200\/~2,975 records, \d+\.\ds\)\n$/)
  assert.match(lines[1], /^Seeding demo data: 2,955 records in \d+\.\ds\n$/)
})

test('an exact total is shown plainly, in the unit counted; an unknown one is left out', () => {
  const { lines, stream } = captured()
  const progress = createProgress('Importing records.ndjson', { total: 27_000, unit: 'lines', stream, lineInterval: 0 })
  progress.update(12_345)
  assert.match(lines[0], /^Importing records\.ndjson: 45% \(12,345\/27,000 lines, \d+\.\ds\)\n$/)
  const stdin = captured()
  createProgress('Importing stdin', { total: 0, unit: 'lines', stream: stdin.stream, lineInterval: 0 }).update(500)
  assert.match(stdin.lines[0], /^Importing stdin: \(500 lines, \d+\.\ds\)\n$/)
})
