// PLUGIN_GATEHOUSE_PROVIDERS: a module that cannot be found, a package that is not installed
// or not a provider, an invalid export, a provider that fails to start or claims a plugin
// name already taken: each stops start-up with one message naming the setting and the entry.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SettingsError } from '../../src/kernel/settings.js'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { buildTestApp } from '../helpers/test-app.js'
import { assertNoInternals, cliDatabase, ROOT, runCli } from '../cli/helpers/cli.js'
import { redirectsFile } from './helpers/provider-app.js'

const refused = async (providers: string, extra: Record<string, string> = {}): Promise<string> => {
  let message = ''
  await assert.rejects(buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_PROVIDERS: providers, ...extra } }), (err: unknown) => {
    assert.ok(err instanceof SettingsError, String(err))
    message = err.message
    return true
  })
  return message
}

test('a module path that does not exist stops start-up, naming the setting and the module', async () => {
  assert.equal(await refused('./does-not-exist.js'),
    `Invalid setting PLUGIN_GATEHOUSE_PROVIDERS: module "./does-not-exist.js" cannot be found (looked for ${join(process.cwd(), 'does-not-exist.js')})`)
})

test('a TypeScript module that does not compile or imports what is missing names the place and the problem', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-provider-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'broken.ts'), 'export default {\n  plugin: "broken",,\n}\n')
  writeFileSync(join(dir, 'importing.ts'), "import { gone } from './gone.js'\nexport default gone\n")
  assert.equal(await refused(join(dir, 'broken.ts')),
    `Invalid setting PLUGIN_GATEHOUSE_PROVIDERS: module "${join(dir, 'broken.ts')}" failed to load: ${join(dir, 'broken.ts')}:2:19: ERROR: Expected identifier but found ","`)
  assert.equal(await refused(join(dir, 'importing.ts')),
    `Invalid setting PLUGIN_GATEHOUSE_PROVIDERS: module "${join(dir, 'importing.ts')}" failed to load: Cannot find module './gone.js'`)
})

test('package names: not installed, or installed but not a provider', async () => {
  assert.equal(await refused('gatehouse-provider-nope'),
    'Invalid setting PLUGIN_GATEHOUSE_PROVIDERS: "gatehouse-provider-nope" is neither a built-in provider (redirects) nor an installed package; module paths start with ./')
  assert.equal(await refused('pino'),
    'Invalid setting PLUGIN_GATEHOUSE_PROVIDERS: package "pino" does not export a valid provider: the default export is not an object; export default defineProvider({ plugin, resources })')
})

test('an invalid export is refused with every problem named', async () => {
  assert.equal(await refused('./test/providers/fixtures/not-a-provider.ts'), 'Invalid setting PLUGIN_GATEHOUSE_PROVIDERS: module "./test/providers/fixtures/not-a-provider.ts" does not export a valid provider: '
    + 'plugin must be a name of lowercase letters, digits and dashes; available must be a function when given; '
    + 'resources[0].summary must be a non-empty string; resources[0].get must be a function; resources[0].item must be an object schema with properties; '
    + 'resources[1].name "items" is used twice; resources[1].params must not define limit (Gatehouse provides them)')
})

test('a params schema Ajv refuses stops start-up (route validators compile only on their first request)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-provider-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'bad-params.mjs')
  writeFileSync(file, `export default { plugin: 'bad-params', resources: [{ name: 'items', summary: 'Items', list: async () => ({ items: [] }), get: async () => null,
    item: { type: 'object', properties: { id: { type: 'string' } } }, params: { type: 'object', properties: { size: { type: 'huge' } } } }] }\n`)
  assert.match(await refused(file), /^Invalid setting PLUGIN_GATEHOUSE_PROVIDERS: module ".*bad-params\.mjs" does not export a valid provider: resources\[0\]\.params is not a valid JSON Schema: .*type/)
})

test('a provider that fails to start, or claims a taken plugin name, stops start-up', async (t) => {
  assert.equal(await refused('./test/providers/fixtures/failing-start.ts'),
    'Invalid setting PLUGIN_GATEHOUSE_PROVIDERS: provider "failing" (module "./test/providers/fixtures/failing-start.ts") failed to start: FAILING_URL is not set')
  const file = redirectsFile(t, [{ id: 'a', from: '/a', to: '/b' }])
  assert.equal(await refused('redirects,./test/providers/fixtures/second-redirects.ts', { PLUGIN_GATEHOUSE_REDIRECTS_FILE: file }),
    'Invalid setting PLUGIN_GATEHOUSE_PROVIDERS: plugin "redirects" is provided by both "redirects" and "./test/providers/fixtures/second-redirects.ts"')
})

test('gatehouse serve exits with one line naming the setting and the module', async (t) => {
  const db = await cliDatabase('sqlite')
  t.after(() => db.destroy())
  const res = await runCli(['serve'], { env: { PLUGIN_GATEHOUSE_DATABASE_URL: db.url, PLUGIN_GATEHOUSE_PORT: '0', PLUGIN_GATEHOUSE_PROVIDERS: './does-not-exist.js' }, timeoutMs: 30_000 })
  assert.equal(res.code, 1, res.stdout)
  assert.equal(res.stderr, `gatehouse: Invalid setting PLUGIN_GATEHOUSE_PROVIDERS: module "./does-not-exist.js" cannot be found (looked for ${join(ROOT, 'does-not-exist.js')})\n`)
  assertNoInternals(res.stderr)
})

test('diagnostics list the loaded providers, not a count of configured entries', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const bundle = (await app.get(`${BASE_PATH}/diagnostics/bundle`, await app.issueToken(['diagnostics:read']))).json().data
  assert.deepEqual(bundle.posture.providers, [])
  const ready = (await app.get(`${BASE_PATH}/readiness`, await app.issueToken(['readiness:read']))).json().data
  assert.equal(ready.checks.find((c: { name: string }) => c.name === 'providers'), undefined, 'no providers check without providers')
})

test('gatehouse diagnostics loads the configured providers and shows each', async (t) => {
  const db = await cliDatabase('sqlite')
  t.after(() => db.destroy())
  const file = redirectsFile(t, [{ id: 'a', from: '/a', to: '/b' }])
  const res = await runCli(['diagnostics', '--json'], { env: { PLUGIN_GATEHOUSE_DATABASE_URL: db.url, PLUGIN_GATEHOUSE_PROVIDERS: 'redirects', PLUGIN_GATEHOUSE_REDIRECTS_FILE: file } })
  assertNoInternals(res.stderr)
  const bundle = JSON.parse(res.stdout)
  assert.deepEqual(bundle.posture.providers.map((p: Record<string, unknown>) => [p.plugin, p.source, p.resources, p.available]), [['redirects', 'built-in', ['redirects'], true]])
  assert.ok(bundle.checks.readiness.checks.some((c: { name: string; status: string }) => c.name === 'providers' && c.status === 'ok'))
})
