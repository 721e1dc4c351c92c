// GET /capabilities: service, discovery, authentication, the caller's scopes, the offered
// scopes, flags, limits (which the API then enforces), the error taxonomy and the endpoints.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { scopeCatalog } from '../helpers/scopes.js'
import { errorCatalog } from '../../src/kernel/errors.js'
import { buildTestApp } from '../helpers/test-app.js'

const pkg = JSON.parse(readFileSync('package.json', 'utf8'))

test('service, discovery, authentication and the caller', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_BASE_URL: 'https://cms.example.test' } })
  t.after(() => app.close())
  const token = await app.issueToken(['capabilities:read', 'auth:read', 'products:read'])
  const res = await app.get(`${BASE_PATH}/capabilities`, token)
  assert.equal(res.statusCode, 200)
  const body = res.json()
  assert.equal(body.ok, true)
  assert.equal(body.requestId, res.headers['x-request-id'])
  const c = body.data
  assert.deepEqual(c.service, { name: 'gatehouse', version: pkg.version })
  assert.equal(c.basePath, '/gatehouse/v1')
  assert.equal(c.baseUrl, 'https://cms.example.test/gatehouse/v1')
  assert.deepEqual(c.discovery, {
    capabilities: '/gatehouse/v1/capabilities', openapi: '/gatehouse/v1/openapi.json', schema: '/gatehouse/v1/schema',
    whoami: '/gatehouse/v1/auth/whoami', docs: '/gatehouse/docs', mcp: '/gatehouse/mcp',
    aliases: [{ path: '/capabilities', target: '/gatehouse/v1/capabilities' }, { path: '/openapi.json', target: '/gatehouse/v1/openapi.json' }],
  })
  assert.deepEqual(c.authentication.methods, ['bearer'])
  assert.equal(c.authentication.header, 'Authorization')
  assert.equal(c.authentication.tokenFormat.prefix, 'gth_')
  assert.match(token, new RegExp(c.authentication.tokenFormat.pattern), 'issued tokens match the published format')

  const whoami = (await app.get(`${BASE_PATH}/auth/whoami`, token)).json().data
  assert.deepEqual(c.caller, { credentialId: whoami.credentialId, grantedScopes: ['capabilities:read', 'auth:read', 'products:read'] })
})

test('scopes and flags: flag-gated scopes are offered only while their flag is on', async (t) => {
  for (const on of [false, true]) {
    const env: Record<string, string> = on ? { PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true', PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true' } : {}
    const app = await buildTestApp({ dialect: 'sqlite', env })
    t.after(() => app.close())
    const c = (await app.get(`${BASE_PATH}/capabilities`, await app.issueToken(['capabilities:read']))).json().data
    const offered = c.scopes.map((s: { scope: string }) => s.scope)
    // A catalogued scope is offered while its flag is on and a route of this app uses it.
    const used = new Set(app.routes.filter((r) => r.flag === undefined || app.services.settings[r.flag]).flatMap((r) => [r.scope, ...(r.optionalScopes ?? [])]))
    const expected = scopeCatalog
      .filter((s) => s.flag === undefined || (on && s.flag !== 'writesExperimental'))
      .filter((s) => used.has(s.scope) || (s.deprecatedFor !== undefined && used.has(s.deprecatedFor)))
      .map((s) => s.scope)
    assert.deepEqual(offered, expected)
    assert.ok(offered.includes('entries:read_all_statuses') && offered.includes('orders:read_sensitive'), 'scopes routes use optionally are offered')
    // A scope no route uses (a surface not built) is neither advertised nor grantable by capabilities.
    for (const s of ['jobs:read', 'jobs:report']) assert.equal(offered.includes(s), used.has(s), s)
    const users = c.scopes.find((s: { scope: string }) => s.scope === 'users:read')
    if (on) assert.deepEqual(users, { scope: 'users:read', group: 'people', description: 'Users without email', deprecatedFor: null })
    assert.deepEqual(c.scopes.find((s: { scope: string }) => s.scope === 'consumers:read').deprecatedFor, 'syncstate:read')
    const flags = Object.fromEntries(c.flags.map((f: { name: string; enabled: boolean }) => [f.name, f.enabled]))
    assert.deepEqual(flags, { enableAddressesApi: on, enableUsersApi: on, writesExperimental: false, webhookTestSink: false })
    assert.equal(c.flags.find((f: { name: string }) => f.name === 'enableUsersApi').setting, 'PLUGIN_GATEHOUSE_ENABLE_USERS_API')
    const paths = c.endpoints.map((e: { path: string }) => e.path)
    assert.equal(paths.includes('/gatehouse/v1/users'), on)
    assert.equal(paths.includes('/gatehouse/v1/addresses/show'), on)
  }
})

test('limits are the ones the API enforces', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '1000' } })
  t.after(() => app.close())
  const token = await app.issueToken(['capabilities:read', 'products:read', 'syncstate:write'])
  const res = await app.get(`${BASE_PATH}/capabilities`, token)
  const { limits } = res.json().data
  assert.deepEqual(limits, { limit: { minimum: 1, maximum: 200, default: 50 }, fieldsMaxPaths: 50, filterMaxExpressions: 20, bodyMaxBytes: 1048576, rateLimitPerMinute: 1000, changesRetentionDays: 90 })
  assert.equal(res.headers['x-ratelimit-limit'], '1000')

  const over = await app.get(`${BASE_PATH}/products?limit=${limits.limit.maximum + 1}`, token)
  assert.equal(over.statusCode, 400)
  assert.equal(over.json().error.details[0].param, 'limit')
  assert.equal((await app.get(`${BASE_PATH}/products?limit=${limits.limit.maximum}`, token)).statusCode, 200)
  const fields = Array.from({ length: limits.fieldsMaxPaths + 1 }, () => 'id').join(',')
  assert.equal((await app.get(`${BASE_PATH}/products?fields=${fields}`, token)).json().error.details[0].param, 'fields')
  const filter = Array.from({ length: limits.filterMaxExpressions + 1 }, () => 'title:x').join(',')
  assert.equal((await app.get(`${BASE_PATH}/products?filter=${encodeURIComponent(filter)}`, token)).json().error.details[0].param, 'filter')
  const big = await app.post(`${BASE_PATH}/sync-state/checkpoint`, JSON.stringify({ resourceType: 'products', metadata: { pad: 'x'.repeat(limits.bodyMaxBytes) } }), token)
  assert.equal(big.statusCode, 413)
})

test('error taxonomy and endpoints', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const c = (await app.get('/capabilities', await app.issueToken(['capabilities:read']))).json().data
  assert.deepEqual(c.errors, Object.entries(errorCatalog).map(([code, e]) => ({ code, status: e.status, meaning: e.title })))
  const byKey = new Map(c.endpoints.map((e: { key: string }) => [e.key, e]))
  assert.deepEqual(byKey.get('orders.list'), {
    key: 'orders.list', method: 'GET', path: '/gatehouse/v1/orders', summary: 'List orders', tag: 'orders',
    scope: 'orders:read', optionalScopes: ['orders:read_sensitive'], list: true, deprecated: false, replacedBy: null, rootAlias: null,
  })
  const alias = byKey.get('consumers.lag') as Record<string, unknown>
  assert.deepEqual([alias.method, alias.path, alias.scope, alias.deprecated, alias.replacedBy], ['GET', '/gatehouse/v1/consumers/lag', 'syncstate:read', true, '/gatehouse/v1/sync-state/lag'])
  assert.equal((byKey.get('capabilities.describe') as { rootAlias: string }).rootAlias, '/capabilities')
  assert.equal((byKey.get('openapi.document') as { scope: string }).scope, 'openapi:read')
})
