#!/usr/bin/env node
// `npm run build` (also run by `npm install`'s prepare step): compiles src/ to dist/ with tsc
// and copies the files that are not TypeScript (starter-pack snippets) beside the compiled
// modules that read them. dist/ is rebuilt from scratch, so no module of a deleted source stays.
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const src = join(root, 'src')
const dist = join(root, 'dist')

rmSync(dist, { recursive: true, force: true })
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const res = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root })
if (res.status !== 0) process.exit(res.status ?? 1)

const assets = (dir) => readdirSync(dir).flatMap((name) => {
  const p = join(dir, name)
  return statSync(p).isDirectory() ? assets(p) : name.endsWith('.ts') ? [] : [p]
})
for (const file of assets(src)) cpSync(file, join(dist, relative(src, file)))
