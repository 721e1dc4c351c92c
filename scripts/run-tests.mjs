#!/usr/bin/env node
// Runs every test file under test/ with node:test, bundled (or through tsx: see below). Node
// 20's runner does not expand globs, so the files are collected here. Extra arguments filter
// file paths.
//
// PostgreSQL is checked once, here: when it is unreachable (and GATEHOUSE_REQUIRE_POSTGRES is
// not 1), one notice line says so and the PostgreSQL tests (named `postgres: …`, as every
// test in a `testDialects()` loop is) are registered but skipped, so the summary counts them
// as skipped instead of silently running fewer tests.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { spawn, spawnSync } from 'node:child_process'
import pg from 'pg'
import { loadEsbuild } from './bundle.mjs'
import { bundleTests } from './test-bundle.mjs'
import { mergeTimes } from './test-times-file.mjs'
import { fileWeights, shrinkingGroups } from './test-groups.mjs'

const collect = (dir) => readdirSync(dir).flatMap((name) => {
  const p = join(dir, name)
  if (statSync(p).isDirectory()) return name === 'helpers' || name === 'fixtures' ? [] : collect(p)
  return p.endsWith('.test.ts') ? [p] : []
})
const filters = process.argv.slice(2)
// An argument that names a test file the walk leaves out (a fixture: test/tooling's tests run
// this script on files made to hang) runs that file too.
// Named as the walk names it (`./test/x.test.ts` is `test/x.test.ts`), so no file runs twice.
const named = filters.filter((x) => x.endsWith('.test.ts') && existsSync(x)).map((x) => relative('.', x))
const files = [...new Set([...collect('test').filter((f) => filters.length === 0 || filters.some((x) => f.includes(x))), ...named])].sort()
if (files.length === 0) {
  console.error('no test files matched')
  process.exit(1)
}

// A test process (a group, a file of its own, the waiting lane) still running after this many
// seconds is ended by node:test and fails, naming what it was running (the timeout reporter
// below), instead of holding the run until CI's own limit: a clean-clone CI run once waited
// ninety minutes on a test of the waiting lane. The longest takes a minute or two (the
// waiting lane's files: 69 s of wall time in one run).
const fileTimeoutS = Number(process.env.GATEHOUSE_TEST_FILE_TIMEOUT_S ?? 600)
if (!Number.isFinite(fileTimeoutS) || fileTimeoutS <= 0) {
  console.error(`GATEHOUSE_TEST_FILE_TIMEOUT_S must be a positive number of seconds (got ${JSON.stringify(process.env.GATEHOUSE_TEST_FILE_TIMEOUT_S)})`)
  process.exit(1)
}

const PG_URL = process.env.GATEHOUSE_TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/test'
const wantsPostgres = (process.env.GATEHOUSE_TEST_DIALECTS ?? 'sqlite,postgres').split(',').includes('postgres')

async function postgresError() {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    await client.query('select 1')
    return undefined
  } catch (err) {
    return err instanceof Error ? err.message || err.name : String(err)
  } finally {
    await client.end().catch(() => {})
  }
}

const env = { ...process.env }
// First, before anything loads node:test: Node 20's runner tracks every promise of the tests
// with an async hook, which makes each one about fifty times as dear (see that file).
const nodeOptions = process.env.GATEHOUSE_TEST_ASYNC_ATTRIBUTION === '1' ? [] : ['--import', pathToFileURL(resolve('scripts/untracked-test-resources.mjs')).href]
if (wantsPostgres) {
  const problem = await postgresError()
  if (problem !== undefined) {
    if (process.env.GATEHOUSE_REQUIRE_POSTGRES === '1') {
      console.error(`PostgreSQL required (GATEHOUSE_REQUIRE_POSTGRES=1) but unreachable at ${PG_URL}: ${problem}`)
      process.exit(1)
    }
    console.error(`notice: PostgreSQL unreachable at ${PG_URL} (${problem}): PostgreSQL tests are skipped; set GATEHOUSE_REQUIRE_POSTGRES=1 to fail instead`)
    // Tells testDialects() to keep the dialect, so its tests are registered and counted.
    env.GATEHOUSE_TEST_POSTGRES = 'skip'
    // Each test process registers the `postgres: …` tests as skipped (see that file for why
    // not the runner's --test-skip-pattern or --test-name-pattern).
    nodeOptions.push('--import', pathToFileURL(resolve('scripts/skip-postgres-tests.mjs')).href)
  } else {
    // Checked here once: the test processes need not each connect to find out (on a loaded
    // machine that check's own 10 s limit failed a whole file).
    env.GATEHOUSE_TEST_POSTGRES = 'reachable'
  }
}

// Most CLI commands run inside the test processes (test/helpers/cli-in-process.ts); servers,
// workers and the tests of a real process's start-up start the CLI as a child process
// (test/helpers/cli-command.ts). Through tsx each start costs about 2.3 s of CPU, built
// (bundled) about 0.5 s: dist/ is built from the sources as they are now, and those tests run it.
// GATEHOUSE_TEST_CLI=source keeps tsx.
// A build newer than every source (npm install's, on a fresh clone) is used as it is.
const newest = (dir) => readdirSync(dir).reduce((m, name) => {
  const p = join(dir, name)
  const s = statSync(p)
  return Math.max(m, s.isDirectory() ? newest(p) : s.mtimeMs)
}, 0)
const builtAt = (() => { try { return statSync('dist/cli/main.js').mtimeMs } catch { return 0 } })()
if (env.GATEHOUSE_TEST_CLI !== 'source') {
  if (builtAt <= Math.max(newest('src'), statSync('tsconfig.build.json').mtimeMs, statSync('scripts/build.mjs').mtimeMs)) {
    console.error('building dist/ for the CLI tests (npm run build)')
    const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' })
    if (build.status !== 0) process.exit(build.status ?? 1)
  }
  env.GATEHOUSE_TEST_CLI = 'dist'
}

// Test databases are copies of one migrated per run (test/helpers/migrated-template.ts keeps
// the templates in this folder, named by the run); they go when the run ends.
env.GATEHOUSE_TEST_RUN = `${process.pid}-${Date.now()}`
const templates = join(tmpdir(), `gatehouse-test-templates-${env.GATEHOUSE_TEST_RUN}`)

// The test files run bundled (scripts/test-bundle.mjs): loading the app module by module through
// tsx's loader thread cost a test process about 2.3 s of CPU more. The bundle goes under
// node_modules/.cache (the packages left outside it are found from there) and is removed when
// the run ends. GATEHOUSE_TEST_BUNDLE=0, or no esbuild, runs them through tsx.
const esbuild = process.env.GATEHOUSE_TEST_BUNDLE === '0' ? undefined : await loadEsbuild()
const bundleRoot = resolve('node_modules/.cache')
const bundleDir = esbuild ? join(bundleRoot, `gatehouse-test-bundle-${env.GATEHOUSE_TEST_RUN}`) : undefined
if (esbuild) {
  removeAbandonedBundles()
  try {
    await bundleTests(esbuild, { root: resolve('.'), files, outdir: bundleDir })
  } catch (err) {
    rmSync(bundleDir, { recursive: true, force: true })
    console.error(`npm test: the test files do not bundle (esbuild's errors above); GATEHOUSE_TEST_BUNDLE=0 runs them one by one through tsx\n${err instanceof Error ? err.message.split('\n')[0] : err}`)
    process.exit(1)
  }
  env.GATEHOUSE_TEST_BUNDLE_DIR = bundleDir
}
/** The module node:test runs for a test file: its bundled form, or the file itself (tsx). */
const runnable = (f) => (bundleDir ? join(bundleDir, f.replace(/\.ts$/, '.js')) : f)

// Several files share one process (a group): starting a process and loading the app costs
// about 0.7 s of CPU bundled (4.5 s through tsx), more than many files' tests. A group imports
// its files one after the other, so their tests run one after the other as in a process of
// their own; the groups run side by side (GATEHOUSE_TEST_CONCURRENCY at a time, 3 by default:
// with the waiting lane and the main runner's lower priority, three fill both cores where two
// left them idle part of the time: 287–298 s against 312 s, back to back on this two-core
// machine; see docs/decisions.md, "Tenth round"). About ten files' time a group at first,
// shorter groups at the end, so they end close together (shrinkingGroups). A file that must
// have a process to itself says so with the line `// npm test: own process`. Files whose assertions bound how long something takes (a
// timeout, a kill, a wake-up) say `// npm test: timing`: they share one group, started first,
// so no two of them run at the same time and they meet the other groups while those start.
// Files that spend their time waiting (for a timeout, a window, a proxy's black hole) with
// little CPU say `// npm test: waits`: their group runs in a second runner beside the first,
// one file at a time, so their waits overlap the other groups' work instead of leaving a core
// idle (see docs/decisions.md, "Ninth round").
// GATEHOUSE_TEST_GROUP_SIZE=1 runs every file alone.
const groupDir = join(tmpdir(), `gatehouse-test-groups-${env.GATEHOUSE_TEST_RUN}`)
/** A whole number of at least 1 from the variable `name`, or `fallback` when it is unset. */
function countSetting(name, fallback) {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^[1-9][0-9]*$/.test(raw)) {
    console.error(`${name} must be a whole number of at least 1 (got ${JSON.stringify(raw)})`)
    process.exit(1)
  }
  return Number(raw)
}
const concurrency = countSetting('GATEHOUSE_TEST_CONCURRENCY', 3)
const { entries, waiting } = groupFiles(files, countSetting('GATEHOUSE_TEST_GROUP_SIZE', 10), concurrency)

const started = { at: Date.now(), cpu: childCpu(), load: loadavg()[0] }
// GATEHOUSE_TEST_TIMES=out.tsv: per-file wall and CPU times (scripts/test-timing.mjs).
const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./scripts/test-timeout-reporter.mjs', '--test-reporter-destination=stdout']
// (Its reporter prints nothing; the destination is a file in the run's folder, not /dev/null,
// which Node 24's runner fails to fsync when it closes: EINVAL, and the run exits 1.)
if (env.GATEHOUSE_TEST_TIMES) reporters.push('--test-reporter=./scripts/test-timing.mjs', `--test-reporter-destination=${join(groupDir, 'timing-reporter.out')}`)
// Bundled, the stacks of failures name the sources' lines (--enable-source-maps: about 0.25 s
// of CPU a process).
// `gatehouse-source`: `gatehouse/providers` (a provider the tests load by path imports it)
// resolves to the sources, not to dist/ (package.json `exports`).
// V8 tiers a function up after it has run a budget of bytecode; the default budget suits a
// long-lived server. A test process lives a minute or less and runs most of the app's code a
// few times, so TurboFan compiled much that then barely ran: a fifth of the test processes'
// CPU. Sixteen times the budget leaves that code to the interpreter and baseline compiler and
// still optimises what is really hot: about 15 % less CPU (docs/decisions.md, "Eleventh
// round"). The CLI and worker processes the tests start get the same (NODE_TIERING in
// test/helpers/cli-command.ts).
const tiering = ['--interrupt-budget=1081344']
const loader = [...tiering, ...(bundleDir ? ['--enable-source-maps'] : ['--import', 'tsx']), '--conditions=gatehouse-source']
// Ctrl-C reaches the test processes too (one process group): this one waits for them to end,
// then removes what the run made (the bundle is about 23 MB) instead of dying at once. A run
// killed otherwise leaves its bundle to the next run (removeAbandonedBundles).
process.on('SIGINT', () => {})
// The main runner's test processes run at a lower priority (niceness 10, their children
// inherit it) than the waiting lane: see scripts/lower-priority.mjs.
const lowerPriority = ['--import', pathToFileURL(resolve('scripts/lower-priority.mjs')).href]
const runner = (paths, lane, laneEnv, priority = []) => new Promise((done) => {
  const args = [...priority, ...loader, '--test', `--test-concurrency=${lane}`, `--test-timeout=${Math.round(fileTimeoutS * 1000)}`, ...reporters, ...nodeOptions, ...paths]
  spawn(process.execPath, args, { stdio: 'inherit', env: laneEnv }).on('exit', (status, signal) => done({ status, signal }))
})
// The waiting lane's per-file times go to a file of their own, added to the main one after.
const waitingTimes = env.GATEHOUSE_TEST_TIMES ? `${env.GATEHOUSE_TEST_TIMES}.waiting` : undefined
// A runner is started only with files to run: given none, node:test would look for test files
// of its own.
const runs = await Promise.all([
  ...(entries.length > 0 ? [runner(entries, concurrency, env, waiting.length > 0 ? lowerPriority : [])] : []),
  ...(waiting.length > 0 ? [runner(waiting, 1, waitingTimes ? { ...env, GATEHOUSE_TEST_TIMES: waitingTimes } : env)] : []),
])
if (waitingTimes) mergeTimes(env.GATEHOUSE_TEST_TIMES, waitingTimes)
const res = runs.find((r) => r.status !== 0) ?? runs[0]
// The test processes' CPU (and their children's: the CLI, pg_dump) is the figure a shared
// machine leaves comparable; PostgreSQL's own is not in it.
const cpu = childCpu() - started.cpu
console.error(`npm test: ${files.length} files in ${entries.length + waiting.length} processes, ${((Date.now() - started.at) / 1000).toFixed(1)} s wall, ${cpu.toFixed(1)} s CPU (test processes and their children), load average ${started.load.toFixed(2)} at the start, ${loadavg()[0].toFixed(2)} at the end`)
rmSync(templates, { recursive: true, force: true })
rmSync(groupDir, { recursive: true, force: true })
if (bundleDir) rmSync(bundleDir, { recursive: true, force: true })
process.exit(res.status ?? (res.signal ? 130 : 1))

/** Removes the bundles of runs whose process is gone (killed before it could clean up). */
function removeAbandonedBundles() {
  let names = []
  try { names = readdirSync(bundleRoot) } catch { return }
  for (const name of names) {
    const pid = /^gatehouse-test-bundle-(\d+)-\d+$/.exec(name)?.[1]
    if (pid === undefined || isRunning(Number(pid))) continue
    rmSync(join(bundleRoot, name), { recursive: true, force: true })
  }
}

function isRunning(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

/** CPU seconds of the child processes this one has waited for (proc(5): cutime + cstime). */
function childCpu() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[13]) + Number(f[14])) / 100
  } catch {
    return 0
  }
}

/**
 * The paths to hand node:test, `entries` for the main runner and `waiting` for the waiting
 * lane: files that want their own process as they are, the timing files in one group, first,
 * the waiting files in a group of their own, the others in groups of about `size`, each group
 * an entry file importing its members (shrinkingGroups).
 */
function groupFiles(all, size, slots) {
  const marked = (f, line) => readFileSync(f, 'utf8').includes(`// npm test: ${line}`)
  const alone = all.filter((f) => size <= 1 || marked(f, 'own process'))
  const waits = all.filter((f) => !alone.includes(f) && marked(f, 'waits'))
  const timing = all.filter((f) => !alone.includes(f) && !waits.includes(f) && marked(f, 'timing'))
  const shared = all.filter((f) => !alone.includes(f) && !waits.includes(f) && !timing.includes(f))
  const groups = shared.length <= 1 ? shared.map((f) => ({ files: [f] })) : shrinkingGroups(shared, size, slots, fileWeights('test/file-times.tsv'))
  // The timing files' group first, then the files of their own, then the others in the order
  // cut. node:test starts its files sorted by path: the entries' numbered names keep this order.
  const timed = Boolean(process.env.GATEHOUSE_TEST_TIMES)
  const entryGroups = [...(timing.length > 0 ? [{ files: timing }] : []), ...alone.map((f) => ({ files: [f] })), ...groups]
  if (waits.length > 0) entryGroups.push({ files: waits })
  if (!timed && entryGroups.length <= 1 && entryGroups.every((g) => g.files.length <= 1)) return { entries: all.map(runnable), waiting: [] }
  mkdirSync(groupDir, { recursive: true })
  const timer = pathToFileURL(resolve('scripts/test-timing.mjs')).href
  const written = entryGroups.map((g, i) => {
    const entry = join(groupDir, `group-${String(i + 1).padStart(4, '0')}.test.mjs`)
    // A file that fails to load is reported as a failing test, and the group goes on.
    const lines = g.files.sort().map((f) => {
      const url = JSON.stringify(pathToFileURL(resolve(runnable(f))).href)
      return `try { await import(${url}) } catch (err) { test(${JSON.stringify(`${f} fails to load`)}, () => { throw err }) }`
    })
    const head = timed ? `import { recordTimes } from ${JSON.stringify(timer)}\nrecordTimes()\n` : ''
    writeFileSync(entry, `// ${g.files.join(', ')}\n${head}import { test } from 'node:test'\n${lines.join('\n')}\n`)
    return entry
  })
  const waiting = waits.length > 0 ? [written.pop()] : []
  return { entries: written, waiting }
}
