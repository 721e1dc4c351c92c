// npm test runs the test files bundled (scripts/test-bundle.mjs). A bundled module must still
// see its source's location: tests and sources read fixtures, docs and package.json relative
// to themselves.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadEsbuild } from '../../scripts/bundle.mjs'
import { bundleTests } from '../../scripts/test-bundle.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..')
const PROBE = 'test/tooling/fixtures/bundle-probe/probe.test.ts'

test('a bundled test reads files relative to its source, and the bundle keeps strings as written', async (t) => {
  const esbuild = await loadEsbuild()
  assert.ok(esbuild, 'esbuild is a dependency')
  // Under node_modules, as npm test puts it: the packages left outside are found from there.
  const outdir = join(ROOT, 'node_modules/.cache', `gatehouse-test-bundle-probe-${process.pid}`)
  t.after(() => rmSync(outdir, { recursive: true, force: true }))
  await bundleTests(esbuild, { root: ROOT, files: [PROBE], outdir })

  const bundled = join(outdir, PROBE.replace(/\.ts$/, '.js'))
  assert.ok(existsSync(bundled))
  assert.equal(existsSync(join(dirname(bundled), 'beside-the-source.txt')), false, 'the fixture is read from the sources, not copied')
  // The sibling module is inside the bundled file, not imported from the sources.
  assert.match(readFileSync(bundled, 'utf8'), /text: "import\.meta\.url"/)
  // A run of its own: with this process's NODE_TEST_CONTEXT the child would report to us.
  const env = { ...process.env }
  delete env.NODE_TEST_CONTEXT
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', bundled], { cwd: ROOT, encoding: 'utf8', env })
  assert.equal(run.status, 0, run.stdout + run.stderr)
  assert.match(run.stdout, /# pass 1/)
})
