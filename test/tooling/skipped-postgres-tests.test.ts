// `npm test` with PostgreSQL unreachable: one notice line, and the PostgreSQL tests counted
// as skipped (not silently left out); with GATEHOUSE_REQUIRE_POSTGRES=1 it stops instead.
// The file run is the one whose PostgreSQL-only test used to vanish from the count.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'

const UNREACHABLE = 'postgres://postgres:postgres@127.0.0.1:1/test'

function runSuite(env: Record<string, string | undefined>) {
  const res = spawnSync(process.execPath, ['scripts/run-tests.mjs', 'test/store/change-feed-commit-order'], {
    encoding: 'utf8',
    // NODE_TEST_CONTEXT would make the inner node --test think it is nested in this one.
    // GATEHOUSE_TEST_CLI=source: the inner run must not rebuild dist/ under the outer run's
    // CLI tests (it would, whenever a source is newer than the build). GATEHOUSE_TEST_TIMES:
    // a timed outer run's file is the outer run's to write.
    env: { ...process.env, NODE_TEST_CONTEXT: undefined, GATEHOUSE_TEST_CLI: 'source', GATEHOUSE_TEST_TIMES: undefined, GATEHOUSE_TEST_DATABASE_URL: UNREACHABLE, GATEHOUSE_TEST_DIALECTS: undefined, GATEHOUSE_TEST_POSTGRES: undefined, ...env },
  })
  return { status: res.status, out: res.stdout + res.stderr }
}

test('PostgreSQL unreachable: the PostgreSQL tests are reported as skipped, after one notice line', () => {
  const { status, out } = runSuite({ GATEHOUSE_REQUIRE_POSTGRES: undefined })
  assert.equal(status, 0, out)
  assert.equal(out.match(/^notice: PostgreSQL unreachable/gm)?.length, 1, out)
  assert.match(out, /ℹ tests 3\n/)
  assert.match(out, /ℹ pass 1\n/)
  assert.match(out, /ℹ skipped 2\n/)
  assert.match(out, /✔ sqlite: a polling reader/)
  assert.match(out, /﹣ postgres: without the commit-order lock/)
})

test('PostgreSQL unreachable and required: the run stops with the reason', () => {
  const { status, out } = runSuite({ GATEHOUSE_REQUIRE_POSTGRES: '1' })
  assert.equal(status, 1)
  assert.match(out, /PostgreSQL required \(GATEHOUSE_REQUIRE_POSTGRES=1\) but unreachable at postgres:\/\/postgres:postgres@127\.0\.0\.1:1\/test/)
  assert.doesNotMatch(out, /ℹ tests/)
})
