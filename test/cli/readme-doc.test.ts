// The README opens with the two commands that work on a fresh machine, they are wired to the
// CLI and the test runner, and its links point at files that exist.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './helpers/cli.js'

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; bin: Record<string, string> }

test('README starts with npm install && npm start, then npm test', () => {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].trim())
  assert.equal(blocks[0], 'npm install && npm start')
  assert.equal(blocks[1], 'npm test')
  assert.ok(readme.indexOf('npm install && npm start') < readme.indexOf('## '), 'the commands come before any section')
  // npm install builds dist/ (prepare); npm start runs it through the launcher.
  assert.equal(pkg.scripts.start, 'node bin/gatehouse.js start')
  assert.equal(pkg.scripts.prepare, 'node scripts/build.mjs --if-stale')
  assert.equal(pkg.scripts.test, 'node scripts/run-tests.mjs')
  assert.equal(pkg.bin.gatehouse, 'bin/gatehouse.js')
})

test('README and getting-started link only to files that exist', () => {
  for (const [file, text] of [['README.md', readme], ['docs/getting-started.md', readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8')]]) {
    const base = file.includes('/') ? join(ROOT, 'docs') : ROOT
    for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
      if (/^https?:/.test(m[1])) continue
      assert.ok(existsSync(join(base, m[1])), `${file} links to missing ${m[1]}`)
    }
  }
})
