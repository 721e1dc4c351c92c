// Per-file times for `npm test` when GATEHOUSE_TEST_TIMES names a file (scripts/time-tests.mjs
// sets it): the wall time and the CPU time each test file took inside the process it shared
// with its group, so the suite's time can be read per file without running each file alone.
//
// In a test process, `recordTimes()` (the group entry calls it first) has every top-level test
// report, as it starts and as it ends (its `t.after` clean-up done), the CPU its process has
// used so far, read from /proc/self/stat: user and system time of the process and of the
// child processes it waited for (the CLI the tests start). node:test carries these
// diagnostics, with the file that registered the test, to the reporter below, in the parent,
// which adds each test's share to its file. What comes before a process's first test (node,
// tsx, loading the app) is counted as `(start-up)`. CPU is the figure a machine shared with
// other work leaves comparable; PostgreSQL's own CPU is not in it (another process).
import { readFileSync } from 'node:fs'
import { afterEach, beforeEach } from 'node:test'
import { sourcePath } from './test-bundle.mjs'
import { writeTimes } from './test-times-file.mjs'

const TAG = 'gatehouse-times'

/** Seconds of CPU so far: this process's, and its waited-for children's. */
function cpu() {
  const stat = readFileSync('/proc/self/stat', 'utf8')
  // Fields 14–17 of proc(5): utime, stime, cutime, cstime, in 1/100 s; f[0] is field 3.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return [(Number(f[11]) + Number(f[12])) / 100, (Number(f[13]) + Number(f[14])) / 100]
}

export function recordTimes() {
  const note = (at) => (t) => t.diagnostic(`${TAG} ${at} ${process.pid} ${performance.now() / 1000} ${cpu().join(' ')}`)
  beforeEach(note('start'))
  afterEach(note('end'))
}

function write(totals) {
  writeTimes(process.env.GATEHOUSE_TEST_TIMES, new Map([...totals].map(([file, t]) => [sourcePath(file), t])))
}

/**
 * The reporter (`--test-reporter`): writes GATEHOUSE_TEST_TIMES (file, wall_s, cpu_s, own_s,
 * children_s, tests) and prints nothing itself.
 */
export default async function* timesReporter(source) {
  const totals = new Map()
  const last = new Map() // pid → the last reading
  const add = (file, from, to, tests) => {
    const t = totals.get(file) ?? { wall: 0, own: 0, children: 0, tests: 0 }
    t.wall += to.wall - from.wall
    t.own += to.own - from.own
    t.children += to.children - from.children
    t.tests += tests
    totals.set(file, t)
  }
  for await (const event of source) {
    if (event.type !== 'test:diagnostic' || event.data.nesting !== 0 || !event.data.message.startsWith(TAG)) continue
    const [, at, pid, wall, own, children] = event.data.message.split(' ')
    const now = { wall: Number(wall), own: Number(own), children: Number(children) }
    const before = last.get(pid) ?? { wall: 0, own: 0, children: 0 }
    // Before a test starts: the previous test's hooks, or the process's start-up.
    add(at === 'end' ? event.data.file : last.has(pid) ? before.file : '(start-up)', before, now, at === 'end' ? 1 : 0)
    last.set(pid, { ...now, file: event.data.file })
    // Written as it goes, so a run stopped before its end still leaves what it measured.
    if (at === 'end') write(totals)
  }
  write(totals)
  yield ''
}
