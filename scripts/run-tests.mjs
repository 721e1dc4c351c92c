#!/usr/bin/env node
// Runs every test file under test/ with node:test through tsx. Node 20's runner does not
// expand globs, so the files are collected here. Extra arguments filter file paths.
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'

const collect = (dir) => readdirSync(dir).flatMap((name) => {
  const p = join(dir, name)
  if (statSync(p).isDirectory()) return name === 'helpers' || name === 'fixtures' ? [] : collect(p)
  return p.endsWith('.test.ts') ? [p] : []
})
const filters = process.argv.slice(2)
const files = collect('test').filter((f) => filters.length === 0 || filters.some((x) => f.includes(x))).sort()
if (files.length === 0) {
  console.error('no test files matched')
  process.exit(1)
}
const concurrency = process.env.GATEHOUSE_TEST_CONCURRENCY ?? '2'
const res = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], { stdio: 'inherit' })
process.exit(res.status ?? 1)
