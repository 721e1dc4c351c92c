// Walks every registered GET route: a token lacking exactly its scope gets 403 naming it,
// a token with it gets 200. Unknown and flag-disabled routes are 404 only after
// authentication.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { scopeCatalog } from '../helpers/scopes.js'
import { routeEnabled } from '../../src/kernel/machine-route.js'

const FLAGS = { PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true', PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true' }

test('every GET route: 403 naming its scope without it, 200 with it', async () => {
  const app = await buildTestApp({ dialect: 'sqlite', env: FLAGS })
  try {
    const { ids } = await seedSmallCatalog(app.services.store)
    const all = scopeCatalog.map((s) => s.scope)
    const routes = app.routes.filter((r) => r.method === 'GET' && routeEnabled(r, app.services.settings) && !r.path.includes(':'))
    assert.ok(routes.length >= 30, `expected the full read surface, got ${routes.length} routes`)
    for (const route of routes) {
      const type = route.path.split('/')[1]
      const url = `/gatehouse/v1${route.path}${route.key.endsWith('.show') ? `?id=${ids[type]}` : ''}`
      const without = all.filter((s) => s !== route.scope && scopeCatalog.find((c) => c.scope === s)?.deprecatedFor !== route.scope)
      const denied = await app.get(url, await app.issueToken(without))
      assert.equal(denied.statusCode, 403, `${url} without ${route.scope}`)
      assert.equal(denied.json().error.code, 'FORBIDDEN')
      assert.equal(denied.json().error.message, `Missing required scope: ${route.scope}`)
      const allowed = route.key === 'workflows.show' ? await ownWorkflow(app, route.scope) : await app.get(url, await app.issueToken([route.scope]))
      assert.equal(allowed.statusCode, 200, `${url} with only ${route.scope}: ${allowed.body.slice(0, 300)}`)
      // /openapi.json is sent bare (the document itself); every other answer is the envelope.
      if (route.bare) assert.equal(allowed.json().openapi, '3.1.0')
      else assert.equal(allowed.json().ok, true)
    }
  } finally {
    await app.close()
  }
})

/** A workflow is shown only to the credential it runs as: the allowed token gets one of its own. */
async function ownWorkflow(app: TestApp, scope: string) {
  // Workflows are created only for credentials holding both job scopes; narrowed afterwards
  // to the one scope under test.
  const { credential, token } = await app.services.credentials.create({ label: 'worker', scopes: ['jobs:read', 'jobs:report'] })
  const wf = await app.services.jobs.create({ name: 'w', templateKey: 'k', credentialId: credential.id, schedule: { cron: '0 * * * *', timezone: 'UTC' } }, { type: 'system', id: 'test' })
  await app.services.credentials.update(credential.id, { scopes: [scope] })
  return app.get(`/gatehouse/v1/workflows/show?id=${wf.id}`, token)
}

test('unknown and flag-disabled routes answer 401 without a token and 404 with one', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    const token = await app.issueToken(['users:read', 'addresses:read', 'entries:read'])
    for (const path of ['/users', '/users/show?id=1', '/addresses', '/addresses/show?id=1', '/no-such-thing', '/entries/extra']) {
      const anon = await app.get(`/gatehouse/v1${path}`)
      assert.equal(anon.statusCode, 401, path)
      assert.equal(anon.json().error.code, 'UNAUTHORIZED')
      assert.equal(anon.headers['www-authenticate'], `Bearer realm="gatehouse", resource_metadata="${app.services.settings.baseUrl}/.well-known/oauth-protected-resource/gatehouse/v1"`)
      const authed = await app.get(`/gatehouse/v1${path}`, token)
      assert.equal(authed.statusCode, 404, path)
      assert.equal(authed.json().error.code, 'NOT_FOUND')
    }
  } finally {
    await app.close()
  }
})

test('a wrong method on an existing path is 405 with Allow, after authentication', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    assert.equal((await app.post('/gatehouse/v1/products', {})).statusCode, 401)
    const res = await app.post('/gatehouse/v1/products', {}, await app.issueToken(['products:read']))
    assert.equal(res.statusCode, 405)
    assert.equal(res.json().error.code, 'METHOD_NOT_ALLOWED')
    assert.equal(res.headers.allow, 'GET, HEAD')
  } finally {
    await app.close()
  }
})
