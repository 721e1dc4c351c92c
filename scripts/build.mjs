#!/usr/bin/env node
// `npm run build` (also run by `npm install`'s prepare step, with --if-stale): compiles src/ to dist/ with tsc
// and copies the files that are not TypeScript (starter-pack snippets) beside the compiled
// modules that read them; then bundles the compiled CLI and the packages it imports into
// dist/bundle/gatehouse.js (with a few chunks), which bin/gatehouse.js runs (see below). dist/
// is rebuilt from scratch, so no module of a deleted source stays.
import { cpSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { bundle, loadEsbuild } from './bundle.mjs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const src = join(root, 'src')
const dist = join(root, 'dist')

const stamp = join(dist, '.built')

// `prepare` (--if-stale) runs whenever npm installs this package, and `npx gatehouse` in a
// checkout installs it: a rebuild there deleted dist/ under a running server, took 46 s for a
// `--version`, and in a copy without src/ left no CLI at all. So prepare builds only when
// something dist/ is made from is newer than the last build.
if (process.argv.includes('--if-stale')) {
  if (!existsSync(src)) {
    console.log('build: no src/ here; dist/ is kept as it is')
    process.exit(0)
  }
  if (existsSync(stamp) && newestInput() <= statSync(stamp).mtimeMs) process.exit(0)
}

/** The latest change to anything dist/ is built from: sources, build scripts, settings, locked packages. */
function newestInput() {
  const newest = (p) => {
    if (!existsSync(p)) return 0
    const s = statSync(p)
    return s.isDirectory() ? Math.max(s.mtimeMs, ...readdirSync(p).map((name) => newest(join(p, name)))) : s.mtimeMs
  }
  return Math.max(...[src, join(root, 'scripts/build.mjs'), join(root, 'scripts/bundle.mjs'), join(root, 'tsconfig.json'), join(root, 'tsconfig.build.json'), join(root, 'package.json'), join(root, 'package-lock.json')].map(newest))
}

rmSync(dist, { recursive: true, force: true })
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const res = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root })
if (res.status !== 0) process.exit(res.status ?? 1)

const assets = (dir) => readdirSync(dir).flatMap((name) => {
  const p = join(dir, name)
  return statSync(p).isDirectory() ? assets(p) : name.endsWith('.ts') ? [] : [p]
})
for (const file of assets(src)) cpSync(file, join(dist, relative(src, file)))

// The CLI in one file (and the chunks it imports on demand), which bin/gatehouse.js runs:
// `gatehouse --help` took 1.3 s of CPU module by module and takes 0.4 s bundled, `serve` 1.9 s
// until it listened and now 1.2 s (scripts/bundle.mjs; docs/decisions.md, "Fifth round: the CLI
// bundled"). The bundle sits two folders down, as every compiled module does (dist/x/y.js),
// so the `../../package.json` and `../../docs/…` paths modules read relative to themselves
// resolve the same; the one module at another depth that reads files beside itself (the
// starter packs' snippets) has them copied next to the bundle (test/tooling/cli-bundle.test.ts
// checks both).
const esbuild = await loadEsbuild()
if (esbuild) {
  const outdir = join(dist, 'bundle')
  await bundle(esbuild, { entry: join(dist, 'cli/main.js'), outdir, name: 'gatehouse' })
  cpSync(join(src, 'ops/templates/packs'), join(outdir, 'packs'), { recursive: true })
} else {
  console.warn('build: esbuild is not installed; the CLI runs module by module from dist/cli/main.js (a slower start)')
}

// Marks the build finished (the time --if-stale compares with).
writeFileSync(stamp, `${new Date().toISOString()}\n`)
