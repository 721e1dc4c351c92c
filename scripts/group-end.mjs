// Ends a group's test process (scripts/run-tests.mjs) once its tests are over, when something
// a test left open would keep it alive. node:test ends a test process when its event loop is
// empty: a server, a pool or a child process that a failed test did not close (its clean-up
// was never registered) kept one group waiting for ever, and the run with it. Idle pools and
// keep-alive sockets held others for tens of seconds after their last test.
//
// node:test's own --test-force-exit cannot do it for a group: it exits as soon as the tests
// registered so far are done, and a group's later files register theirs only when they are
// imported. Here: after the entry has imported every file (`importsDone`), once no test has
// run for a second, a timer that does not keep the process alive ends it `GRACE_MS` later;
// a process with nothing left open has ended by then by itself. The exit code stays
// node:test's to give: the parent counts failures from the results already reported.
import { afterEach, beforeEach } from 'node:test'

const GRACE_MS = 5000
let running = 0
let started = 0
let imported = false

function check() {
  if (!imported || running > 0) return
  const seen = started
  setTimeout(() => {
    if (running > 0 || started !== seen) return
    setTimeout(() => {
      if (running > 0 || started !== seen) return
      process.stderr.write(`npm test: ${process.argv[1] ?? 'a test group'}: tests done, but something left open kept the process alive; ending it\n`)
      process.exit()
    }, GRACE_MS).unref()
  }, 1000).unref()
}

export function watchGroupEnd() {
  beforeEach(() => { running++; started++ })
  afterEach(() => { running--; check() })
}

/** Called by the entry after its last import: every test of the group is registered. */
export function importsDone() {
  imported = true
  check()
}
