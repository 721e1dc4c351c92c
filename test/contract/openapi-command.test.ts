// `gatehouse openapi` prints the same document GET /openapi.json serves for the same
// configuration, without touching the configured database.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BASE_PATH } from '../../src/api/machine-route.js'
import { buildTestApp } from '../helpers/test-app.js'
import { runCli } from '../cli/helpers/cli.js'

const CONFIG = { PLUGIN_GATEHOUSE_BASE_URL: 'https://cms.example.test', PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true' }

test('gatehouse openapi prints the served document; --output writes it; no database is created', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-openapi-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const dbFile = join(dir, 'never', 'gatehouse.db')
  const env = { ...CONFIG, PLUGIN_GATEHOUSE_DATABASE_URL: `sqlite:${dbFile}` }

  const app = await buildTestApp({ dialect: 'sqlite', env: CONFIG })
  t.after(() => app.close())
  const served = (await app.get(`${BASE_PATH}/openapi.json`, await app.issueToken(['openapi:read']))).json()

  const printed = await runCli(['openapi'], { env })
  assert.equal(printed.code, 0, printed.stderr)
  assert.deepEqual(JSON.parse(printed.stdout), served)
  assert.ok(printed.stdout.split('\n').length > 100, 'indented by default')
  assert.ok(served.paths['/users'], 'the configured flag is honoured')
  assert.equal(served.servers[0].url, 'https://cms.example.test/gatehouse/v1')

  const file = join(dir, 'openapi.json')
  const written = await runCli(['openapi', '--output', file, '--compact'], { env })
  assert.equal(written.code, 0, written.stderr)
  assert.equal(written.stdout, '')
  assert.match(written.stderr, /^wrote .*openapi\.json \(\d+ paths\)\n$/)
  const text = readFileSync(file, 'utf8')
  assert.equal(text.trimEnd().split('\n').length, 1)
  assert.deepEqual(JSON.parse(text), served)

  assert.equal(existsSync(dbFile), false, 'the configured database is left alone')
})
