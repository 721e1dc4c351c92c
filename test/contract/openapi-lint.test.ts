// An independent linter reads the OpenAPI document as client tools do: Spectral with its
// `spectral:oas` ruleset (the engine behind `spectral lint`) reports no error on the document
// with every flag on, and only the warnings we chose to accept (each with its reason).
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { Spectral, type RulesetDefinition } from '@stoplight/spectral-core'
import { oas } from '@stoplight/spectral-rulesets'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { buildTestApp } from '../helpers/test-app.js'
import { redirectsFile } from '../providers/helpers/provider-app.js'

const ALL_FLAGS = {
  PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true',
  PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true',
  PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true',
}

/** Warnings kept on purpose. */
const ACCEPTED_WARNINGS: Record<string, string> = {
  // OpenAPI 3.1 lets a requirement of a non-OAuth scheme list roles; ours name the scope the
  // bearer token needs. Spectral checks the list against OAuth flows, which we have none of.
  'oas3-operation-security-defined': 'scopes named in bearer requirements',
  // The summary says it all for most operations; a description is added where there is more.
  'operation-description': 'summary only',
  // A self-hosted product has no single contact; the deployment's operator is it.
  'info-contact': 'no vendor contact',
}

const SEVERITY = ['error', 'warn', 'info', 'hint'] as const

test('Spectral (spectral:oas) finds no error in the document with every flag on (and with a provider loaded), and no warning outside the accepted ones', async (t) => {
  const file = redirectsFile(t, [{ id: 'a', from: '/a', to: '/b' }])
  for (const env of [ALL_FLAGS, { ...ALL_FLAGS, PLUGIN_GATEHOUSE_PROVIDERS: 'redirects', PLUGIN_GATEHOUSE_REDIRECTS_FILE: file }]) {
    await lintClean(t, env)
  }
})

async function lintClean(t: TestContext, env: Record<string, string>): Promise<void> {
  const app = await buildTestApp({ dialect: 'sqlite', env })
  t.after(() => app.close())
  const res = await app.get(`${BASE_PATH}/openapi.json`, await app.issueToken(['openapi:read']))
  assert.equal(res.statusCode, 200)

  const spectral = new Spectral()
  // What a `.spectral.yaml` of `extends: spectral:oas` runs.
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] })
  const results = await spectral.run(res.body)
  const problems = results.map((r) => `${SEVERITY[r.severity]} ${String(r.code)} at ${r.path.join('.')}: ${r.message}`)
  assert.deepEqual(problems.filter((p) => p.startsWith('error')), [])
  assert.deepEqual(results.filter((r) => !(String(r.code) in ACCEPTED_WARNINGS)).map((r) => problems[results.indexOf(r)]), [])
  // The accepted rules really fire (a rule that stops firing leaves its entry to be removed).
  assert.deepEqual([...new Set(results.map((r) => String(r.code)))].sort(), Object.keys(ACCEPTED_WARNINGS).sort())
}
