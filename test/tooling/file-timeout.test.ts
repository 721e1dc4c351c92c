// `npm test` ends a test process that runs past GATEHOUSE_TEST_FILE_TIMEOUT_S and fails the
// run, naming the files of its group and the test still running, or saying that none was
// (a process kept alive by something its tests left open); it never waits for CI's own limit.
// npm test: waits (mostly the inner runs' three-second timeouts)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'

const HANGS = 'test/tooling/fixtures/hang/hangs.test.ts'
const STAYS_OPEN = 'test/tooling/fixtures/hang/stays-open.test.ts'

function runSuite(files: string[], timeoutS: string) {
  const started = performance.now()
  const res = spawnSync(process.execPath, ['scripts/run-tests.mjs', ...files], {
    encoding: 'utf8',
    // As in skipped-postgres-tests: the inner run is not nested in this one, builds nothing,
    // writes no times of the outer run's, and needs no PostgreSQL.
    env: { ...process.env, NODE_TEST_CONTEXT: undefined, GATEHOUSE_TEST_CLI: 'source', GATEHOUSE_TEST_TIMES: undefined, GATEHOUSE_TEST_DIALECTS: 'sqlite', GATEHOUSE_TEST_FILE_TIMEOUT_S: timeoutS },
    timeout: 60_000,
  })
  return { status: res.status, out: res.stdout + res.stderr, ms: performance.now() - started }
}

test('a group whose test never ends is ended at the file timeout; the run fails naming its files and that test', () => {
  const { status, out, ms } = runSuite([HANGS, STAYS_OPEN], '3')
  assert.equal(status, 1, out)
  assert.ok(ms < 30_000, `the run took ${Math.round(ms)} ms`)
  assert.match(out, /✔ ends at once/)
  assert.match(out, /test timed out after 3000ms/)
  assert.match(out, new RegExp(`npm test: a test process ran past the file timeout .* its files: ${HANGS}, ${STAYS_OPEN}\n`))
  assert.match(out, new RegExp(`npm test: still running there: never ends \\(${HANGS}\\)\n`))
})

test('a process that stays open after its tests ended is ended too, and the run says no test was running', () => {
  const { status, out } = runSuite([STAYS_OPEN], '3')
  assert.equal(status, 1, out)
  assert.match(out, /✔ ends but leaves a timer running/)
  assert.match(out, new RegExp(`its files: ${STAYS_OPEN}\n`))
  assert.match(out, /none of its tests was still running: the process did not exit after its tests/)
})

test('a file timeout that is not a positive number of seconds is refused by name', () => {
  const { status, out } = runSuite([STAYS_OPEN], 'ten')
  assert.equal(status, 1)
  assert.match(out, /GATEHOUSE_TEST_FILE_TIMEOUT_S must be a positive number of seconds \(got "ten"\)/)
  assert.doesNotMatch(out, /ℹ tests/)
})
