// Loaded with --import into every test process when PostgreSQL is unreachable (by
// scripts/run-tests.mjs): a test named `postgres: …` is registered with `skip`, so it is
// reported and counted as skipped without running. The runner's own filters cannot do this on
// every Node: Node 20's --test-name-pattern reports what it filters out as skipped, but on
// Node 22 and 24 --test-skip-pattern and --test-name-pattern leave such tests out of the
// report altogether. node:test's `test` is replaced on its CommonJS exports, and
// syncBuiltinESMExports() hands the replacement to `import { test } from 'node:test'`.
import { createRequire, syncBuiltinESMExports } from 'node:module'

const nodeTest = createRequire(import.meta.url)('node:test')
const original = nodeTest.test
function test(name, options, fn) {
  if (typeof name !== 'string' || !name.startsWith('postgres:')) return original(name, options, fn)
  if (typeof options === 'function') return original(name, { skip: 'PostgreSQL unreachable' }, options)
  return original(name, { ...options, skip: 'PostgreSQL unreachable' }, fn)
}
Object.assign(test, original)
nodeTest.test = test
syncBuiltinESMExports()
