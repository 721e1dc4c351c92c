// The control plane exists only with PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL=true: otherwise
// every /control path answers 401 without a token and 404 after authentication (also on
// the admin API). With the flag on, each route needs its own scope.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'
import { ALL_CONTROL_SCOPES, CONTROL, controlApp } from './helpers/control-app.js'

const ROUTES: readonly [method: 'GET' | 'POST', path: string, scope: string][] = [
  ['GET', '/policies', 'control:policies:read'],
  ['POST', '/policies/upsert', 'control:policies:write'],
  ['GET', '/approvals', 'control:approvals:read'],
  ['POST', '/approvals/request', 'control:approvals:request'],
  ['POST', '/approvals/decide', 'control:approvals:decide'],
  ['GET', '/executions', 'control:executions:read'],
  ['POST', '/policy-simulate', 'control:actions:simulate'],
  ['POST', '/actions/execute', 'control:actions:execute'],
  ['GET', '/audit', 'control:audit:read'],
]

test('flag off: every /control path is 401 without a token, 404 after authentication; the admin side is 404 too', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_ADMIN_TOKEN: 'adm' } })
  t.after(() => app.close())
  const token = await app.issueToken(['health:read'])
  for (const [method, path] of ROUTES) {
    const call = (tok?: string) => (method === 'GET' ? app.get(`${CONTROL}${path}`, tok) : app.post(`${CONTROL}${path}`, {}, tok))
    const anonymous = await call()
    assert.equal(anonymous.statusCode, 401, `${method} ${path} without a token`)
    const res = await call(token)
    assert.equal(res.statusCode, 404, `${method} ${path} with the flag off`)
    assert.equal(res.json().error.code, 'NOT_FOUND')
  }
  assert.ok(!app.routes.filter((r) => r.flag === undefined).some((r) => r.path.startsWith('/control')), 'every control route is flag-gated')
  const admin = await app.app.inject({ method: 'GET', url: '/gatehouse/admin/v1/control/approvals', headers: { authorization: 'Bearer adm' } })
  assert.equal(admin.statusCode, 404)
})

test('flag on: each route answers 403 naming its scope without it, and not 401/403 with only it', async (t) => {
  const app = await controlApp('sqlite')
  t.after(() => app.close())
  const others = (scope: string) => ALL_CONTROL_SCOPES.filter((s) => s !== scope)
  for (const [method, path, scope] of ROUTES) {
    const call = (tok: string) => (method === 'GET' ? app.get(`${CONTROL}${path}`, tok) : app.post(`${CONTROL}${path}`, {}, tok))
    const denied = await call(await app.token(others(scope)))
    assert.equal(denied.statusCode, 403, `${method} ${path} without ${scope}`)
    assert.equal(denied.json().error.message, `Missing required scope: ${scope}`)
    const allowed = await call(await app.token([scope]))
    assert.ok(![401, 403, 404].includes(allowed.statusCode), `${method} ${path} with ${scope}: ${allowed.statusCode}`)
  }
})
