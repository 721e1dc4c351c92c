// The GATEHOUSE_TEST_TIMES file (see scripts/test-timing.mjs): one row per test file, tab
// separated, `file wall_s cpu_s own_s children_s tests`, slowest by CPU first. Written by the
// timing reporter, merged by scripts/run-tests.mjs (the waiting lane's runner writes its own),
// read by scripts/time-tests.mjs.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'

const HEADER = 'file\twall_s\tcpu_s\town_s\tchildren_s\ttests'

/** name → { wall, own, children, tests } (seconds) written as the file, slowest by CPU first. */
export function writeTimes(file, times) {
  const cpu = (t) => t.own + t.children
  const rows = [...times].sort((a, b) => cpu(b[1]) - cpu(a[1]))
  const line = ([name, t]) => [name, t.wall.toFixed(2), cpu(t).toFixed(2), t.own.toFixed(2), t.children.toFixed(2), t.tests].join('\t')
  writeFileSync(file, [HEADER, ...rows.map(line)].join('\n') + '\n')
}

/** name → { wall, cpu, own, children, tests } from a written file. */
export function readTimes(file) {
  const [, ...rows] = readFileSync(file, 'utf8').trim().split('\n')
  return new Map(rows.map((r) => {
    const [name, wall, cpu, own, children, tests] = r.split('\t')
    return [name, { wall: Number(wall), cpu: Number(cpu), own: Number(own), children: Number(children), tests: Number(tests) }]
  }))
}

/** Adds the rows of `from` (then removed) to `into`, summing rows of the same name. Either may be missing. */
export function mergeTimes(into, from) {
  const read = (file) => { try { return readTimes(file) } catch { return new Map() } }
  const times = read(into)
  for (const [name, t] of read(from)) {
    const sum = times.get(name)
    times.set(name, sum ? { wall: sum.wall + t.wall, own: sum.own + t.own, children: sum.children + t.children, tests: sum.tests + t.tests } : t)
  }
  writeTimes(into, times)
  rmSync(from, { force: true })
}
