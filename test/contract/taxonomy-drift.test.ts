// The error taxonomy and the scope catalogue are published three times: the catalogues in
// code, /capabilities, and docs/api.md. They list the same codes and scopes (as Fastify's
// errors test keeps lib/errors.js and its docs in step).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { isKnownScope, scopeCatalog } from '../helpers/scopes.js'
import { errorCatalog } from '../../src/kernel/errors.js'
import { buildTestApp } from '../helpers/test-app.js'

const doc = readFileSync('docs/api.md', 'utf8')

/** The lines of one `## heading` section of docs/api.md. */
function section(heading: string): string[] {
  const lines = doc.split('\n')
  const start = lines.findIndex((l) => l.trim() === `## ${heading}`)
  assert.ok(start >= 0, `docs/api.md has a "## ${heading}" section`)
  const end = lines.findIndex((l, i) => i > start && /^#{1,2} /.test(l))
  return lines.slice(start + 1, end < 0 ? undefined : end)
}

const ALL_FLAGS = { PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true', PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true', PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' }

test('error codes: errorCatalog, the capabilities taxonomy and docs/api.md agree on codes and statuses', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const fromCode = Object.entries(errorCatalog).map(([code, e]) => `${e.status} ${code}`)
  const caps = (await app.get(`${BASE_PATH}/capabilities`, await app.issueToken(['capabilities:read']))).json().data
  const fromCapabilities = caps.errors.map((e: { code: string; status: number }) => `${e.status} ${e.code}`)
  const fromDocs = section('Error codes').flatMap((l) => {
    const m = /^\|\s*(\d{3})\s*\|\s*`([A-Z_]+)`\s*\|/.exec(l)
    return m ? [`${m[1]} ${m[2]}`] : []
  })
  assert.ok(fromCode.length >= 12)
  assert.deepEqual(fromCapabilities, fromCode)
  assert.deepEqual([...fromDocs].sort(), [...fromCode].sort())
  // Each code's meaning is published as written in the catalogue.
  for (const e of caps.errors) assert.equal(e.meaning, errorCatalog[e.code as keyof typeof errorCatalog].title)
})

test('scopes: scopeCatalog, capabilities (every flag on) and docs/api.md list the same scopes; routes use only known ones', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: ALL_FLAGS })
  t.after(() => app.close())
  const used = new Set(app.routes.flatMap((r) => [r.scope, ...(r.optionalScopes ?? [])]))
  const fromCode = scopeCatalog.filter((s) => used.has(s.scope) || (s.deprecatedFor !== undefined && used.has(s.deprecatedFor))).map((s) => s.scope)
  const caps = (await app.get(`${BASE_PATH}/capabilities`, await app.issueToken(['capabilities:read']))).json().data
  const fromCapabilities = caps.scopes.map((s: { scope: string }) => s.scope)
  const fromDocs = section('Scopes').flatMap((l) => {
    const m = /^\|\s*`([^`]+)`\s*\|/.exec(l)
    return m ? [m[1]] : []
  })
  assert.deepEqual(fromCapabilities, fromCode)
  assert.deepEqual(fromDocs.filter((s) => !s.startsWith('plugins:')).sort(), [...fromCode].sort())
  assert.ok(fromDocs.includes('plugins:{plugin}:{resource}:read'), 'the provider scope pattern is documented')
  // Descriptions and groups are published as catalogued.
  for (const s of caps.scopes) {
    const info = scopeCatalog.find((x) => x.scope === s.scope)
    assert.deepEqual([s.group, s.description], [info?.group, info?.description])
  }
  for (const r of app.routes) {
    for (const scope of [r.scope, ...(r.optionalScopes ?? [])]) assert.ok(isKnownScope(scope), `${r.key} uses unknown scope ${scope}`)
  }
})
