// `gatehouse openapi` prints the same document GET /openapi.json serves for the same
// configuration, without touching the configured database; loaded providers included.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { buildTestApp } from '../helpers/test-app.js'
import { runCli } from '../cli/helpers/cli.js'
import { Validator } from '@seriousme/openapi-schema-validator'
import { redirectsFile } from '../providers/helpers/provider-app.js'

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
  assert.deepEqual(Object.keys(served.paths).filter((p) => p.startsWith('/plugins/')), [], 'no provider, no plugin paths')
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

test('gatehouse openapi with the redirects provider loaded: its two operations with the item schema, a valid document', async (t) => {
  const file = redirectsFile(t, [{ id: 'a', from: '/a', to: '/b' }])
  const env = { PLUGIN_GATEHOUSE_PROVIDERS: 'redirects', PLUGIN_GATEHOUSE_REDIRECTS_FILE: file }
  const printed = await runCli(['openapi', '--compact'], { env })
  assert.equal(printed.code, 0, printed.stderr)
  const doc = JSON.parse(printed.stdout)
  const result = await new Validator().validate(doc)
  assert.deepEqual(result.errors ?? [], [], 'validator errors')

  const list = doc.paths['/plugins/redirects/redirects'].get
  const show = doc.paths['/plugins/redirects/redirects/{id}'].get
  assert.equal(list.operationId, 'plugins.redirects.redirects.list')
  assert.equal(show.operationId, 'plugins.redirects.redirects.show')
  for (const op of [list, show]) assert.deepEqual(op.security, [{ bearerAuth: ['plugins:redirects:redirects:read'] }])
  assert.deepEqual(list.parameters.filter((p: { in?: string }) => p.in === 'query').map((p: { name: string }) => p.name), ['limit', 'cursor', 'fields', 'filter', 'q', 'from', 'statusCode', 'enabled'])
  assert.deepEqual(show.parameters.map((p: { name: string; in: string; $ref?: string }) => p.$ref ?? `${p.in}:${p.name}`), ['path:id', 'query:fields', '#/components/parameters/X-Request-Id'])

  // List and detail point at one item component: the provider's item schema.
  const ref = list.responses[200].content['application/json'].schema.properties.data.items.$ref
  assert.equal(ref, '#/components/schemas/PluginsRedirectsRedirectsItem')
  assert.equal(show.responses[200].content['application/json'].schema.properties.data.$ref, ref)
  const item = doc.components.schemas.PluginsRedirectsRedirectsItem
  assert.deepEqual(Object.keys(item.properties), ['id', 'from', 'to', 'statusCode', 'enabled', 'updatedAt'])
  assert.deepEqual(item.properties.statusCode.enum, [301, 302, 307, 308])
  assert.deepEqual(item['x-required-without-fields'], ['id', 'from', 'to', 'statusCode', 'enabled', 'updatedAt'])

  // 503 covers both the database and the provider being down, in one response of its own.
  for (const op of [list, show]) assert.deepEqual(op.responses[503], { $ref: '#/components/responses/SERVICE_UNAVAILABLE_OR_PROVIDER_UNAVAILABLE' })
  const both = doc.components.responses.SERVICE_UNAVAILABLE_OR_PROVIDER_UNAVAILABLE
  assert.deepEqual(both.content['application/json'].schema.allOf[1].properties.error.properties.code.enum, ['SERVICE_UNAVAILABLE', 'PROVIDER_UNAVAILABLE'])
  assert.ok(both.headers['Retry-After'])
  assert.deepEqual(show.responses[404], { $ref: '#/components/responses/NOT_FOUND' })
  // Lint-clean with the provider too: every filed response is referenced (Spectral's unused-component rule).
  const text = JSON.stringify(doc.paths)
  for (const name of Object.keys(doc.components.responses)) assert.ok(text.includes(`"#/components/responses/${name}"`), `${name} is referenced`)
})
