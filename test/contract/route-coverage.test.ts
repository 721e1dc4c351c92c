// The contract lists exactly what is served: every route Fastify registered under the base
// path (and every root alias) appears in the OpenAPI document, /capabilities and /schema with
// the scope the route enforces, nothing else appears there, and a feature flag moves both
// sides together.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { effectiveScopes } from '../../src/auth/scopes.js'
import { buildTestApp, type TestApp } from '../helpers/test-app.js'
import { redirectsApp, redirectsFile, REDIRECTS_SCOPE } from '../providers/helpers/provider-app.js'

const FLAGS_ON = { PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true', PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true' }
const CONTRACT = ['capabilities:read', 'openapi:read', 'schema:read']

type Listing = Map<string, string> // "GET /gatehouse/v1/products" → scope

/** The four views of the surface: what Fastify serves, and what the three documents say. */
async function views(app: TestApp) {
  const token = await app.issueToken(CONTRACT)
  const served: Listing = new Map()
  const rootAliases = new Set<string>()
  for (const r of app.registeredRoutes) {
    if (r.method === 'HEAD' || r.scope === undefined) continue
    if (r.url.startsWith(BASE_PATH + '/')) served.set(`${r.method} ${r.url}`, r.scope)
    else rootAliases.add(r.url)
  }
  // Every route under the base path is a machine route with a scope.
  const unscoped = app.registeredRoutes.filter((r) => r.url.startsWith(BASE_PATH + '/') && r.method !== 'HEAD' && r.scope === undefined)
  assert.deepEqual(unscoped, [], 'routes under the base path that bypass the machine API plugin')

  const doc = (await app.get(`${BASE_PATH}/openapi.json`, token)).json()
  const openapi: Listing = new Map()
  const openapiAliases = new Set<string>()
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
    for (const [method, op] of Object.entries(item)) {
      const security = op.security as Record<string, string[]>[]
      assert.equal(security.length, 1)
      assert.deepEqual(security[0].bearerAuth, [op['x-gatehouse-scope']], `${method} ${path}: security names the scope`)
      openapi.set(`${method.toUpperCase()} ${BASE_PATH}${path.replace(/\{(\w+)\}/g, ':$1')}`, op['x-gatehouse-scope'] as string)
      if (op['x-gatehouse-root-alias']) openapiAliases.add(op['x-gatehouse-root-alias'] as string)
    }
  }

  const caps = (await app.get(`${BASE_PATH}/capabilities`, token)).json().data
  const capabilities: Listing = new Map(caps.endpoints.map((e: { method: string; path: string; scope: string }) => [`${e.method} ${e.path}`, e.scope]))
  const catalog = (await app.get(`${BASE_PATH}/schema`, token)).json().data
  const schema: Listing = new Map(catalog.endpoints.map((e: { method: string; path: string; scope: string }) => [`${e.method} ${e.path}`, e.scope]))
  return {
    token, served, rootAliases, openapi, openapiAliases, capabilities, schema,
    capabilityAliases: new Set<string>(caps.discovery.aliases.map((a: { path: string }) => a.path)),
    offeredScopes: new Set<string>(caps.scopes.map((s: { scope: string }) => s.scope)),
  }
}

const sorted = (m: Listing) => [...m].sort(([a], [b]) => a.localeCompare(b))

async function assertSameSurface(app: TestApp) {
  const v = await views(app)
  assert.ok(v.served.size >= 40, `expected the whole registry to be served, got ${v.served.size}`)
  assert.deepEqual(sorted(v.openapi), sorted(v.served), 'OpenAPI paths and scopes = served routes')
  assert.deepEqual(sorted(v.capabilities), sorted(v.served), 'capabilities endpoints and scopes = served routes')
  assert.deepEqual(sorted(v.schema), sorted(v.served), 'schema catalog endpoints and scopes = served routes')
  assert.deepEqual([...v.rootAliases].sort(), ['/capabilities', '/openapi.json'])
  assert.deepEqual([...v.openapiAliases].sort(), [...v.rootAliases].sort())
  assert.deepEqual([...v.capabilityAliases].sort(), [...v.rootAliases].sort())
  // Every scope a served route needs is offered in the catalogue.
  for (const scope of new Set(v.served.values())) assert.ok(v.offeredScopes.has(scope), `${scope} is offered`)
  return v
}

/** The documented scope is the one enforced: without it 403 naming it, with only it no 401/403. */
async function assertScopesEnforced(app: TestApp, v: Awaited<ReturnType<typeof views>>) {
  const everything = [...v.offeredScopes]
  for (const [endpoint, scope] of v.served) {
    const [method, path] = endpoint.split(' ')
    const url = path.replace(/:(\w+)/g, 'x')
    const call = (token: string) => (method === 'GET' ? app.get(url, token) : app.post(url, {}, token))
    const others = everything.filter((s) => !effectiveScopes([s]).has(scope))
    const denied = await call(await app.issueToken(others))
    assert.equal(denied.statusCode, 403, `${endpoint} without ${scope}`)
    assert.equal(denied.json().error.message, `Missing required scope: ${scope}`)
    const allowed = await call(await app.issueToken([scope]))
    assert.ok(![401, 403].includes(allowed.statusCode), `${endpoint} with only ${scope}: ${allowed.statusCode} ${allowed.body.slice(0, 200)}`)
  }
}

test('flags off: served routes, OpenAPI, capabilities and schema catalog list the same endpoints and scopes', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const v = await assertSameSurface(app)
  for (const gone of ['users', 'addresses']) {
    assert.ok(![...v.served.keys()].some((k) => k.includes(`/${gone}`)), `${gone} not served`)
    assert.ok(![...v.openapi.keys()].some((k) => k.includes(`/${gone}`)), `${gone} not in OpenAPI`)
    for (const s of [`${gone}:read`, `${gone}:read_sensitive`]) assert.ok(!v.offeredScopes.has(s), `${s} not offered`)
    const res = await app.get(`${BASE_PATH}/${gone}`, await app.issueToken([`${gone}:read`]))
    assert.equal(res.statusCode, 404)
  }
  // No provider loaded: no plugin routes anywhere, no plugin scopes offered.
  assert.ok(![...v.served.keys(), ...v.openapi.keys(), ...v.capabilities.keys(), ...v.schema.keys()].some((k) => k.includes('/plugins/')), 'no plugin routes')
  assert.ok(![...v.offeredScopes].some((s) => s.startsWith('plugins:')), 'no plugin scopes')
  const plugin = await app.get(`${BASE_PATH}/plugins/redirects/redirects`, await app.issueToken([REDIRECTS_SCOPE]))
  assert.equal(plugin.statusCode, 404)
  await assertScopesEnforced(app, v)
})

test('a loaded provider: its two routes appear on every side, with its scope', async (t) => {
  const app = await redirectsApp(t, redirectsFile(t, [{ id: 'a', from: '/a', to: '/b' }]))
  const v = await assertSameSurface(app)
  for (const path of ['/plugins/redirects/redirects', '/plugins/redirects/redirects/:id']) {
    const key = `GET ${BASE_PATH}${path}`
    for (const side of [v.served, v.openapi, v.capabilities, v.schema]) assert.equal(side.get(key), REDIRECTS_SCOPE, key)
  }
  assert.equal([...v.served.keys()].filter((k) => k.includes('/plugins/')).length, 2)
})

test('flags on: users and addresses appear on every side, with their scopes', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: FLAGS_ON })
  t.after(() => app.close())
  const v = await assertSameSurface(app)
  for (const on of ['users', 'addresses']) {
    for (const key of [`GET ${BASE_PATH}/${on}`, `GET ${BASE_PATH}/${on}/show`]) {
      assert.equal(v.served.get(key), `${on}:read`)
      assert.equal(v.openapi.get(key), `${on}:read`)
    }
    for (const s of [`${on}:read`, `${on}:read_sensitive`]) assert.ok(v.offeredScopes.has(s), `${s} offered`)
    const res = await app.get(`${BASE_PATH}/${on}`, await app.issueToken([`${on}:read`]))
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json().data, [])
  }
  await assertScopesEnforced(app, v)
})
