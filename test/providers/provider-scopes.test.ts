// Provider scopes: offered (capabilities, the control panel's account form) only while their
// provider is loaded, in a group of their own; grantable by name before that.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { panelApp, signedIn } from '../panel/helpers/panel-client.js'
import { runCli } from '../cli/helpers/cli.js'
import { REDIRECTS_SCOPE, redirectsFile } from './helpers/provider-app.js'

test('while the provider is loaded its scope is offered in capabilities and the account form', async (t) => {
  const file = redirectsFile(t, [{ id: 'a', from: '/a', to: '/b' }])
  const app = await panelApp({ PLUGIN_GATEHOUSE_PROVIDERS: 'redirects', PLUGIN_GATEHOUSE_REDIRECTS_FILE: file })
  t.after(() => app.close())
  const caps = (await app.get(`${BASE_PATH}/capabilities`, await app.issueToken(['capabilities:read']))).json().data
  assert.deepEqual(caps.scopes.filter((s: { scope: string }) => s.scope.startsWith('plugins:')),
    [{ scope: REDIRECTS_SCOPE, group: 'providers', description: 'URL redirects', deprecatedFor: null }])
  const form = await (await signedIn(app)).page('/gatehouse/cp/accounts/new')
  assert.match(form.body, /<legend>External providers<\/legend>/)
  assert.match(form.body, new RegExp(`name="scopes" value="${REDIRECTS_SCOPE}"`))

  const cli = await runCli(['scopes', '--json'], { env: { PLUGIN_GATEHOUSE_PROVIDERS: 'redirects', PLUGIN_GATEHOUSE_REDIRECTS_FILE: file } })
  assert.equal(cli.code, 0, cli.stderr)
  assert.deepEqual(JSON.parse(cli.stdout).filter((s: { scope: string }) => s.scope.startsWith('plugins:')),
    [{ scope: REDIRECTS_SCOPE, group: 'providers', description: 'URL redirects', advertised: true, flag: null, deprecatedFor: null }])
})

test('without the provider its scope is not offered, but may be granted by name', async (t) => {
  const app = await panelApp()
  t.after(() => app.close())
  const caps = (await app.get(`${BASE_PATH}/capabilities`, await app.issueToken(['capabilities:read']))).json().data
  assert.deepEqual(caps.scopes.filter((s: { scope: string }) => s.scope.startsWith('plugins:')), [])
  const form = await (await signedIn(app)).page('/gatehouse/cp/accounts/new')
  assert.doesNotMatch(form.body, /plugins:|External providers/)

  const { credential } = await app.services.credentials.create({ label: 'prepared', scopes: [REDIRECTS_SCOPE] })
  assert.deepEqual(credential.scopes, [REDIRECTS_SCOPE])
  await assert.rejects(app.services.credentials.create({ label: 'typo', scopes: ['plugins:Redirects:redirects:read'] }), /Invalid parameter/)
})
