// How `npm test` (scripts/run-tests.mjs) divides the test files among its processes.
import { existsSync, statSync } from 'node:fs'
import { readTimes } from './test-times-file.mjs'

/**
 * How long each file is expected to run, for balancing the groups: the wall time it took inside
 * its group in a whole run, from `table` (test/file-times.tsv, which `node scripts/time-tests.mjs
 * test/file-times.tsv` writes; wall, not CPU, because a file that waits holds its group as
 * long as one that computes). A file it does not list (new since, or a fixture named on the
 * command line) is weighed by its size.
 */
export function fileWeights(table) {
  let measured = new Map()
  try { measured = readTimes(table) } catch { /* no table: sizes only */ }
  const size = (f) => statSync(f).size
  const wall = (f) => (Number.isFinite(measured.get(f)?.wall) ? measured.get(f).wall : undefined)
  // Seconds a byte: the median of the listed files still there (about 0.0003 in the tables of
  // 2026-11-30; that figure without a table).
  const ratios = [...measured.keys()].filter((f) => wall(f) !== undefined && existsSync(f)).map((f) => wall(f) / Math.max(1, size(f)))
  const perByte = ratios.sort((a, b) => a - b)[Math.floor(ratios.length / 2)] ?? 0.00033
  return (f) => wall(f) ?? size(f) * perByte
}

/** The shortest a group is cut (seconds of its files' expected time): a process costs its start-up. */
const MIN_GROUP_S = 5

/**
 * `files` in groups of one process each, in the order node:test is to start them: longest
 * files first, each group filled from the head of that order up to its share of the time left
 * (and at most twice `size` files, unless they are shorter than MIN_GROUP_S together). The
 * share is `size` files' time on average at first, then what is left divided among the `slots`
 * processes running at once, so the last groups are short and end close together (guided
 * self-scheduling); never below MIN_GROUP_S. Equal groups of ten files by size had taken 14
 * to 53 s in one run, and whichever long one started last ran alone at the end: 13–20 s with a
 * core idle (docs/decisions.md, "Eleventh round").
 */
export function shrinkingGroups(files, size, slots, weight) {
  const count = Math.ceil(files.length / size)
  const order = [...files].sort((a, b) => weight(b) - weight(a))
  const total = order.reduce((n, f) => n + weight(f), 0)
  const groups = []
  let left = total
  while (order.length > 0) {
    const share = Math.max(MIN_GROUP_S, Math.min(total / count, left / slots))
    const group = { weight: 0, files: [] }
    // Twice `size` files at most, unless they add up to less than MIN_GROUP_S.
    const room = () => group.weight + weight(order[0]) <= share && (group.files.length < 2 * size || group.weight < MIN_GROUP_S)
    while (order.length > 0 && (group.files.length === 0 || room())) {
      const f = order.shift()
      group.weight += weight(f)
      group.files.push(f)
    }
    left -= group.weight
    groups.push(group)
  }
  return groups
}
