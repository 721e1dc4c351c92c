// How `npm test` divides its files among processes (scripts/test-groups.mjs): every file in
// exactly one group, the longest first, the last groups short so the processes end together,
// and files the time table does not list weighed by their size.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileWeights, shrinkingGroups } from '../../scripts/test-groups.mjs'


test('groups hold every file once, longest first, and shrink towards the end', () => {
  // 60 files: a few long ones, many short ones (seconds).
  const times = new Map(Array.from({ length: 60 }, (_, i) => [`f${i}`, i < 5 ? 20 - i : 1 + (i % 7)]))
  const groups = shrinkingGroups([...times.keys()], 10, 3, (f) => times.get(f) ?? 0)

  const placed = groups.flatMap((g) => g.files)
  assert.deepEqual([...placed].sort(), [...times.keys()].sort(), 'every file in exactly one group')
  const order = placed.map((f) => times.get(f) ?? 0)
  assert.deepEqual(order, [...order].sort((a, b) => b - a), 'longest files start first')
  for (const g of groups) assert.equal(g.weight, g.files.reduce((n, f) => n + (times.get(f) ?? 0), 0))

  const total = order.reduce((n, t) => n + t, 0)
  const share = total / 6 // ten files' time on average
  for (const g of groups) assert.ok(g.files.length === 1 || g.weight <= share, `a group of ${g.weight} s over ${share} s`)
  assert.ok(groups.every((g) => g.files.length <= 20), 'at most twice the group size')
  // The last three groups together are about what one slot's share of the end is: short.
  const last = groups.slice(-3)
  assert.ok(last.every((g) => g.weight < groups[0].weight), `last groups ${last.map((g) => g.weight)} against ${groups[0].weight}`)
  assert.ok(last.every((g) => g.weight <= Math.max(5, share / 2)), `last groups ${last.map((g) => g.weight)}`)
})

test('a group is never shorter than five seconds, unless it holds the last files', () => {
  const files = Array.from({ length: 30 }, (_, i) => `f${i}`)
  const groups = shrinkingGroups(files, 10, 3, () => 0.5)
  assert.ok(groups.slice(0, -1).every((g) => g.weight >= 5 - 0.5), groups.map((g) => g.weight).join(' '))
  assert.equal(groups.flatMap((g) => g.files).length, 30)
})

test('a group holds at most twice the group size, unless its files add up to less than five seconds', () => {
  // After the long file, the short ones' share (17.7 s) would fit 44 of them in one group.
  const times = new Map([['long', 100], ...Array.from({ length: 60 }, (_, i) => [`short${i}`, 0.4] as const)])
  const groups = shrinkingGroups([...times.keys()], 10, 1, (f) => times.get(f) ?? 0)
  assert.ok(groups.every((g) => g.files.length <= 20), groups.map((g) => g.files.length).join(' '))
  // Files of nothing at all share one process rather than one each per twenty.
  const empty = shrinkingGroups(Array.from({ length: 50 }, (_, i) => `e${i}`), 10, 3, () => 0)
  assert.equal(empty.length, 1)
})

test('files the table lists are weighed by their wall time, others by their size at the table\'s seconds a byte', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-test-groups-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = (name: string, bytes: number) => { const p = join(dir, name); writeFileSync(p, 'x'.repeat(bytes)); return p }
  const listed = file('listed.test.ts', 1000)
  const other = file('other.test.ts', 1000)
  const unlisted = file('new.test.ts', 3000)
  const table = join(dir, 'times.tsv')
  writeFileSync(table, `file\twall_s\tcpu_s\town_s\tchildren_s\ttests\n${listed}\t4.00\t2\t2\t0\t1\n${other}\t2.00\t1\t1\t0\t1\n(start-up)\t9\t9\t9\t0\t0\n`)
  const weight = fileWeights(table)
  assert.equal(weight(listed), 4)
  // The median of 4 and 2 s per 1000 bytes is 0.004 s a byte (the upper of two).
  assert.equal(weight(unlisted), 3000 * 0.004)
  // Without a table, sizes at the measured default.
  assert.equal(fileWeights(join(dir, 'missing.tsv'))(unlisted), 3000 * 0.00033)
})
