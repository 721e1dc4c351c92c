#!/usr/bin/env node
// Where the suite's time goes, per test file, as `npm test` runs it (files grouped in shared
// processes): runs scripts/run-tests.mjs with GATEHOUSE_TEST_TIMES=out.tsv (see
// scripts/test-timing.mjs for what is measured) and prints the slowest files by CPU, which a
// machine shared with other work leaves comparable; wall times are not.
//
//   node scripts/time-tests.mjs out.tsv [path substrings…]     run, write out.tsv, print
//   node scripts/time-tests.mjs --table out.tsv [--top=20]     print a written file's table
//   node scripts/time-tests.mjs --compare before.tsv after.tsv [--top=20]
//                                                              the slowest files before, with after
import { resolve } from 'node:path'
import { spawnSync } from 'node:child_process'
import { readTimes } from './test-times-file.mjs'

const args = process.argv.slice(2)
const top = Number(args.find((a) => a.startsWith('--top='))?.slice('--top='.length) ?? 20)
const plain = args.filter((a) => !a.startsWith('--top='))

const sum = (times, key) => [...times.values()].reduce((n, t) => n + t[key], 0)

function table(times) {
  const rows = [...times].sort((a, b) => b[1].cpu - a[1].cpu).slice(0, top)
  console.log('| file | tests | CPU s | of which child processes | wall s |\n|---|---:|---:|---:|---:|')
  for (const [name, t] of rows) console.log(`| ${name} | ${t.tests} | ${t.cpu.toFixed(1)} | ${t.children.toFixed(1)} | ${t.wall.toFixed(1)} |`)
  console.log(`| all ${times.size - (times.has('(start-up)') ? 1 : 0)} files and start-up | ${sum(times, 'tests')} | ${sum(times, 'cpu').toFixed(1)} | ${sum(times, 'children').toFixed(1)} | ${sum(times, 'wall').toFixed(1)} |`)
}

function compare(before, after) {
  const rows = [...before].sort((a, b) => b[1].cpu - a[1].cpu).slice(0, top)
  const cell = (t) => (t ? `${t.cpu.toFixed(1)} | ${t.wall.toFixed(1)}` : '– | –')
  console.log('| file | CPU s before | wall s before | CPU s after | wall s after |\n|---|---:|---:|---:|---:|')
  for (const [name, t] of rows) console.log(`| ${name} | ${cell(t)} | ${cell(after.get(name))} |`)
  console.log(`| all files and start-up | ${sum(before, 'cpu').toFixed(1)} | ${sum(before, 'wall').toFixed(1)} | ${sum(after, 'cpu').toFixed(1)} | ${sum(after, 'wall').toFixed(1)} |`)
}

if (plain[0] === '--table' && plain[1]) table(readTimes(plain[1]))
else if (plain[0] === '--compare' && plain[1] && plain[2]) compare(readTimes(plain[1]), readTimes(plain[2]))
else if (plain[0] && !plain[0].startsWith('--')) {
  const [out, ...filters] = plain
  const res = spawnSync(process.execPath, ['scripts/run-tests.mjs', ...filters], { stdio: 'inherit', env: { ...process.env, GATEHOUSE_TEST_TIMES: resolve(out) } })
  table(readTimes(out))
  process.exit(res.status ?? 1)
} else {
  console.error('usage: node scripts/time-tests.mjs out.tsv [path substrings…] | --table out.tsv | --compare before.tsv after.tsv [--top=20]')
  process.exit(1)
}
