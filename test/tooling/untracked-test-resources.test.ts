// scripts/untracked-test-resources.mjs, which npm test loads into every test process: Node's
// test runner then tracks no promise (a promise callback runs with no async id), other async
// hooks still work, and an error thrown by a test's asynchronous work still fails the run.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const PRELOAD = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '../../scripts/untracked-test-resources.mjs')).href

function runTestFile(source: string, preload: boolean): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-untracked-'))
  try {
    const file = join(dir, 'probe.test.mjs')
    writeFileSync(file, source)
    // A run of its own: with this process's NODE_TEST_CONTEXT the child would report to us.
    const env = { ...process.env }
    delete env.NODE_TEST_CONTEXT
    const run = spawnSync(process.execPath, [...(preload ? ['--import', PRELOAD] : []), '--test', '--test-reporter=tap', file], { encoding: 'utf8', env })
    return { status: run.status, output: run.stdout + run.stderr }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const PROBE = `
import { test } from 'node:test'
import { createHook, executionAsyncId } from 'node:async_hooks'
test('probe', async () => {
  const ids = []
  for (let i = 0; i < 3; i++) await Promise.resolve().then(() => ids.push(executionAsyncId()))
  console.log('promise ids ' + ids.join(','))
  let seen = 0
  const hook = createHook({ init() { seen++ } }).enable()
  await new Promise((resolve) => setTimeout(resolve, 1))
  hook.disable()
  console.log('own hook saw ' + (seen > 0))
})
`

test('with the preload the runner tracks no promise, and a hook of the test’s own still runs', () => {
  const tracked = runTestFile(PROBE, false)
  assert.equal(tracked.status, 0, tracked.output)
  assert.doesNotMatch(tracked.output, /promise ids 0,0,0/, 'without the preload, Node’s runner tracks promises (else this check proves nothing)')
  const untracked = runTestFile(PROBE, true)
  assert.equal(untracked.status, 0, untracked.output)
  assert.match(untracked.output, /promise ids 0,0,0/)
  assert.match(untracked.output, /own hook saw true/)
})

test('with the preload, an error thrown by a test’s asynchronous work still fails the run', () => {
  const run = runTestFile(`
import { test } from 'node:test'
test('leaks an error', async () => {
  setTimeout(() => { throw new Error('thrown later by the test') }, 1)
  await new Promise((resolve) => setTimeout(resolve, 20))
})
`, true)
  assert.notEqual(run.status, 0, run.output)
  assert.match(run.output, /thrown later by the test/)
})
