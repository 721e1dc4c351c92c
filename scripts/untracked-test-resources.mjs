// Loaded with --import, first, into every test process by scripts/run-tests.mjs (unless
// GATEHOUSE_TEST_ASYNC_ATTRIBUTION=1): Node 20's test runner enables an async hook that maps
// every asynchronous resource to the test that created it, with a destroy callback for each.
// That hook makes every promise cost about fifty times as much: a million awaits take 2.8 s
// under it and 0.06 s without it, and the suite awaits on every query and request.
//
// The runner uses that map for one thing: naming the test whose asynchronous work raised an
// uncaught exception or an unhandled rejection. Without it such an error is still reported
// (as a diagnostic of the run, "a resource generated asynchronous activity…") and still fails
// `npm test` (exit code 1); only the name of the test it came from is missing, and
// GATEHOUSE_TEST_ASYNC_ATTRIBUTION=1 brings it back. docs/decisions.md ("Node 20's test runner
// and promises") has the measurements.
//
// The runner's harness takes createHook from node:async_hooks when it is first loaded (after
// this file); the replacement hands it a hook that is never enabled and leaves every other
// caller's hooks alone.
import asyncHooks from 'node:async_hooks'

const createHook = asyncHooks.createHook
asyncHooks.createHook = function createHookUnlessTestHarness(callbacks) {
  if (new Error().stack?.includes('internal/test_runner/harness')) {
    return { enable() { return this }, disable() { return this } }
  }
  return createHook.call(this, callbacks)
}
