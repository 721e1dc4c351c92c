#!/usr/bin/env node
// Where the suite's time goes: runs each test file in a process of its own (as node:test
// would, through tsx, against the compiled CLI), a few at a time, and writes one line per file
// with its wall time and its CPU time (user and system, the child processes it waited for
// included), so that a machine shared with other work still gives comparable numbers.
//
//   node scripts/time-tests.mjs out.tsv [--jobs=2] [path substrings…]
//
// Build dist/ first (npm run build). PostgreSQL's own CPU is not counted: it is another process.
import { appendFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawn } from 'node:child_process'

const [out, ...rest] = process.argv.slice(2)
if (!out) {
  console.error('usage: node scripts/time-tests.mjs out.tsv [--jobs=2] [path substrings…]')
  process.exit(1)
}
const jobs = Number(rest.find((a) => a.startsWith('--jobs='))?.slice('--jobs='.length) ?? 2)
const filters = rest.filter((a) => !a.startsWith('--jobs='))
const collect = (dir) => readdirSync(dir).flatMap((name) => {
  const p = join(dir, name)
  if (statSync(p).isDirectory()) return name === 'helpers' || name === 'fixtures' ? [] : collect(p)
  return p.endsWith('.test.ts') ? [p] : []
})
const files = collect('test').filter((f) => filters.length === 0 || filters.some((x) => f.includes(x))).sort()

const env = { ...process.env, GATEHOUSE_TEST_CLI: 'dist', GATEHOUSE_TEST_RUN: process.env.GATEHOUSE_TEST_RUN ?? `time-${process.pid}` }
writeFileSync(out, 'file\twall_s\tuser_s\tsys_s\tpass\tfail\n')

function timeFile(file) {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/time', ['-f', 'TIME %e %U %S', process.execPath, '--import', 'tsx', '--test', '--test-reporter=tap', file], { env })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('close', () => {
      const [, wall, user, sys] = stderr.match(/TIME (\S+) (\S+) (\S+)/) ?? []
      const count = (key) => stdout.match(new RegExp(`^# ${key} (\\d+)`, 'm'))?.[1]
      appendFileSync(out, `${file}\t${wall}\t${user}\t${sys}\t${count('pass')}\t${count('fail')}\n`)
      resolve()
    })
  })
}

let next = 0
const started = Date.now()
await Promise.all(Array.from({ length: jobs }, async () => {
  while (next < files.length) await timeFile(files[next++])
}))
appendFileSync(out, `all files\t${(Date.now() - started) / 1000}\n`)
