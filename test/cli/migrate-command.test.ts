// `gatehouse migrate` applies every migration once and lists each with what happened.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { migrations } from '../../src/store/migrations/index.js'
import { cliDatabase, runCli } from './helpers/cli.js'

test('migrate lists every migration as applied, then as already applied', async (t) => {
  const db = await cliDatabase('sqlite')
  t.after(() => db.destroy())
  const env = { PLUGIN_GATEHOUSE_DATABASE_URL: db.url }

  const first = await runCli(['migrate'], { env })
  assert.equal(first.code, 0, first.stderr)
  const lines = first.stdout.trim().split('\n')
  assert.deepEqual(lines[0].split(/\s+/), ['MIGRATION', 'STATUS'])
  assert.deepEqual(lines.slice(1).map((l) => l.split(/\s{2,}/)), migrations.map((m) => [m.name, 'applied now']))

  const second = await runCli(['migrate', '--json'], { env })
  assert.equal(second.code, 0, second.stderr)
  assert.deepEqual(JSON.parse(second.stdout), migrations.map((m) => ({ name: m.name, status: 'already-applied' })))

  const stored = db.open()
  t.after(() => stored.close())
  const rows = await stored.db.selectFrom('migrations').select('name').orderBy('name').execute()
  assert.deepEqual(rows.map((r) => r.name), migrations.map((m) => m.name).sort())
})
