// `prepare` (npm install, and `npx gatehouse` in a checkout, which installs it) builds only when
// dist/ is older than what it is built from, and never where there is no src/: it used to
// delete dist/ and rebuild it for every npx call, under a running server.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { ROOT } from '../helpers/cli-command.js'

function checkout(t: { after(fn: () => void): void }, withSrc: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-build-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  for (const f of ['build.mjs', 'bundle.mjs']) cpSync(join(ROOT, 'scripts', f), join(dir, 'scripts', f))
  mkdirSync(join(dir, 'dist'))
  writeFileSync(join(dir, 'dist', 'kept.js'), '// built before\n')
  if (withSrc) {
    mkdirSync(join(dir, 'src'))
    writeFileSync(join(dir, 'src', 'a.ts'), 'export {}\n')
    const old = new Date(Date.now() - 60_000)
    utimesSync(join(dir, 'src', 'a.ts'), old, old)
    utimesSync(join(dir, 'src'), old, old)
    for (const f of ['build.mjs', 'bundle.mjs']) utimesSync(join(dir, 'scripts', f), old, old)
    writeFileSync(join(dir, 'dist', '.built'), 'now\n')
  }
  return dir
}

const prepare = (dir: string) => spawnSync(process.execPath, [join(dir, 'scripts/build.mjs'), '--if-stale'], { cwd: dir, encoding: 'utf8' })

test('without src/, prepare keeps dist/ as it is', (t) => {
  const dir = checkout(t, false)
  const res = prepare(dir)
  assert.equal(res.status, 0, res.stderr)
  assert.match(res.stdout, /no src\/ here; dist\/ is kept/)
  assert.ok(existsSync(join(dir, 'dist', 'kept.js')))
})

test('with nothing newer than the last build, prepare does nothing', (t) => {
  const dir = checkout(t, true)
  const res = prepare(dir)
  assert.equal(res.status, 0, res.stderr)
  assert.ok(existsSync(join(dir, 'dist', 'kept.js')), 'dist/ is not rebuilt')
})
