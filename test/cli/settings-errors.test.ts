// An invalid setting stops a command with one line naming it, and a non-zero exit; bad
// options and unknown commands do the same. --help works for every command.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CommanderError, type Command } from 'commander'
import { buildProgram } from '../../src/cli/main.js'
import { assertNoInternals, cliDatabase, runCli } from './helpers/cli.js'

test('an invalid setting exits non-zero with a message naming it', async (t) => {
  const db = await cliDatabase('sqlite')
  t.after(() => db.destroy())
  // A malformed value, and a setting that another one makes required.
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ PLUGIN_GATEHOUSE_PORT: 'eighty' }, 'PLUGIN_GATEHOUSE_PORT', /expected a whole number, got "eighty"/],
    [{ PLUGIN_GATEHOUSE_WEBHOOK_URL: 'https://hooks.example.com/in' }, 'PLUGIN_GATEHOUSE_WEBHOOK_SECRET', /required when PLUGIN_GATEHOUSE_WEBHOOK_URL is set/],
  ]
  for (const [env, name, problem] of cases) {
    const res = await runCli(['migrate'], { env: { PLUGIN_GATEHOUSE_DATABASE_URL: db.url, ...env } })
    assert.equal(res.code, 1, `${name}: ${res.stdout}`)
    assert.equal(res.stdout, '')
    const lines = res.stderr.trim().split('\n')
    assert.equal(lines.length, 1, res.stderr)
    assert.match(lines[0], new RegExp(`^gatehouse: Invalid setting ${name}: `))
    assert.match(lines[0], problem)
    assertNoInternals(res.stderr)
  }
})

test('a SQLite path that cannot be made or opened stops a command naming the setting', async () => {
  for (const [url, problem] of [
    ['sqlite:/dev/null/x.db', /cannot make the folder of the SQLite file \/dev\/null\/x\.db \(EEXIST/],
    ['sqlite:/', /cannot open the SQLite file \//],
  ] as const) {
    const res = await runCli(['credentials', 'list'], { env: { PLUGIN_GATEHOUSE_DATABASE_URL: url } })
    assert.equal(res.code, 1, res.stdout)
    const lines = res.stderr.trim().split('\n')
    assert.equal(lines.length, 1, res.stderr)
    assert.match(lines[0], /^gatehouse: Invalid setting PLUGIN_GATEHOUSE_DATABASE_URL: /)
    assert.match(lines[0], problem)
  }
})

test('a bad option value and an unknown command exit non-zero with one line', async () => {
  const scale = await runCli(['seed', '--demo', '--scale', '0'], { env: {} })
  assert.equal(scale.code, 1)
  assert.match(scale.stderr.trim(), /^gatehouse: option '--scale <n>' argument '0' is invalid\. expected a whole number from 1 to 1000$/)

  // The same program in process, with commander's exit turned into an exception.
  let written = ''
  const program = buildProgram().exitOverride().configureOutput({ writeErr: (text) => { written += text } })
  await assert.rejects(program.parseAsync(['node', 'gatehouse', 'frobnicate']), (e: unknown) =>
    e instanceof CommanderError && e.code === 'commander.unknownCommand' && e.exitCode === 1)
  assert.equal(written, "gatehouse: unknown command 'frobnicate'\n")
})

test('every command and subcommand has --help; listings have --json', async () => {
  const program = buildProgram()
  // Each runnable command as its path from the top: [credentials, create], [migrate], …
  const leaves: Command[][] = program.commands.flatMap((c) => (c.commands.length > 0 ? c.commands.map((s) => [c, s]) : [[c]]))
  const names = leaves.map((path) => path.map((c) => c.name()).join(' '))
  for (const expected of ['start', 'serve', 'migrate', 'seed', 'import', 'credentials create', 'credentials list', 'credentials rotate',
    'credentials revoke', 'credentials pause', 'credentials resume', 'credentials delete', 'admin create', 'admin list']) {
    assert.ok(names.includes(expected), `missing command ${expected}`)
  }
  for (const path of leaves) {
    const leaf = path[path.length - 1]
    assert.ok(leaf.description().length > 0, `${leaf.name()} has no description`)
    assert.match(leaf.helpInformation(), /-h, --help/)
  }
  for (const listing of ['migrate', 'credentials list', 'admin list', 'seed', 'import']) {
    const leaf = leaves.find((p) => p.map((c) => c.name()).join(' ') === listing)?.at(-1)
    assert.ok(leaf?.options.some((o) => o.long === '--json'), `${listing} has no --json`)
  }

  // And through a real process: help goes to stdout with exit 0.
  const res = await runCli(['credentials', 'create', '--help'], { env: {} })
  assert.equal(res.code, 0)
  assert.match(res.stdout, /^Usage: gatehouse credentials create \[options\]/)
  assert.match(res.stdout, /--scopes <list>/)
  assert.match(res.stdout, /--expires-in <duration>/)
})
