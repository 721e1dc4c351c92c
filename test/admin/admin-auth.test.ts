// Who may use the admin API: only the configured admin token (or, through the seam, a
// control-panel session). Each rule has a test that fails if the rule is removed. These
// are HTTP rules, not storage behaviour, so they run on SQLite only.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import Fastify from 'fastify'
import { adminApi } from '../../src/api/admin/admin-api.js'
import { installErrorHandler } from '../../src/api/error-handler.js'
import { readScopes } from '../helpers/scopes.js'
import type { TestResponse } from '../helpers/test-app.js'
import { ADMIN, ADMIN_TOKEN, adminClient, adminTestApp, countRows, dataOf } from './helpers/admin-client.js'
import { clearOfRateWindowEnd } from '../helpers/rate-window.js'

const section = { handle: 'news', name: 'News', type: 'channel', entryTypes: [] }

function assertUnauthorized(res: TestResponse, message?: RegExp): void {
  assert.equal(res.statusCode, 401, res.body)
  const body = res.json()
  assert.equal(body.error.code, 'UNAUTHORIZED')
  if (message) assert.match(body.error.message, message)
  assert.equal(body.ok, undefined)
  assert.equal(body.requestId, res.headers['x-request-id'])
  assert.match(String(res.headers['www-authenticate']), /^Bearer /)
  assert.ok(!res.body.includes(ADMIN_TOKEN), 'the admin token is never echoed')
}

test('no token, a wrong token or another scheme is 401 and writes nothing', async (t) => {
  const app = await adminTestApp('sqlite')
  t.after(() => app.close())

  assertUnauthorized(await adminClient(app, null).post('/sections', section), /Missing admin credentials/)
  assertUnauthorized(await adminClient(app, 'wrong').post('/sections', section), /Invalid admin token/)
  assertUnauthorized(await adminClient(app, ADMIN_TOKEN + 'x').post('/sections', section), /Invalid admin token/)
  assertUnauthorized(await adminClient(app, ADMIN_TOKEN.slice(0, -1)).post('/sections', section), /Invalid admin token/)
  assertUnauthorized(await adminClient(app, null).post('/sections', section, { authorization: `Basic ${Buffer.from('admin:' + ADMIN_TOKEN).toString('base64')}` }), /Malformed/)
  assertUnauthorized(await adminClient(app, null).get('/credentials'))
  assertUnauthorized(await adminClient(app, null).del('/sections/1'))
  assert.equal(await countRows(app.database.db, 'sections'), 0)
  assert.equal(await countRows(app.database.db, 'change_log'), 0)

  // The right token gets in.
  const created = dataOf(await adminClient(app).post('/sections', section), 201)
  assert.equal(created.handle, 'news')
  // The scheme name is case-insensitive, as in RFC 7235.
  assert.equal((await adminClient(app, null).get(`/sections/${created.id}`, { authorization: `bearer ${ADMIN_TOKEN}` })).statusCode, 200)
})

test('authentication comes before the route: unknown admin paths are 401 without the token, 404 with it', async (t) => {
  const app = await adminTestApp('sqlite')
  t.after(() => app.close())
  assertUnauthorized(await adminClient(app, null).get('/no-such-thing/1'))
  assertUnauthorized(await adminClient(app, 'wrong').get('/no-such-thing/1'))
  const res = await adminClient(app).get('/no-such-thing/1')
  assert.equal(res.statusCode, 404)
  assert.equal(res.json().error.code, 'NOT_FOUND')
})

test('without PLUGIN_GATEHOUSE_ADMIN_TOKEN and without managed admin tokens the admin API answers 401 to everything', async (t) => {
  const app = await adminTestApp('sqlite', { PLUGIN_GATEHOUSE_ADMIN_TOKEN: '' })
  t.after(() => app.close())
  assert.equal(app.services.settings.adminToken, undefined)
  for (const token of [null, ADMIN_TOKEN, 'undefined', '']) {
    const c = adminClient(app, token)
    assertUnauthorized(await c.post('/sections', section))
    assertUnauthorized(await c.get('/credentials'))
    assertUnauthorized(await c.get('/nothing-here'))
  }
  assertUnauthorized(await adminClient(app, ADMIN_TOKEN).get('/credentials'), /Invalid admin token \(create one with: gatehouse admin token create --label NAME\)/)
  assert.equal(await countRows(app.database.db, 'sections'), 0)
})

test('machine tokens do not open the admin API, and the admin token does not open the machine API', async (t) => {
  const app = await adminTestApp('sqlite')
  t.after(() => app.close())
  const machineToken = await app.issueToken(readScopes)
  assert.equal((await app.get('/gatehouse/v1/auth/whoami', machineToken)).statusCode, 200)
  assertUnauthorized(await adminClient(app, machineToken).get('/credentials'), /Invalid admin token/)
  assertUnauthorized(await adminClient(app, machineToken).post('/sections', section))

  const res = await app.get('/gatehouse/v1/auth/whoami', ADMIN_TOKEN)
  assert.equal(res.statusCode, 401)
  assert.equal(res.json().error.code, 'UNAUTHORIZED')
})

test('failed admin authentications are throttled per client address', async (t) => {
  const app = await adminTestApp('sqlite', { PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '3' })
  t.after(() => app.close())
  const guess = (token: string, remoteAddress: string) =>
    app.app.inject({ method: 'GET', url: `${ADMIN}/credentials`, remoteAddress, headers: { authorization: `Bearer ${token}` } })
  await clearOfRateWindowEnd()
  for (let i = 0; i < 3; i++) assert.equal((await guess(`guess-${i}`, '198.51.100.20')).statusCode, 401)
  const blocked = await guess('guess-4', '198.51.100.20')
  assert.equal(blocked.statusCode, 429)
  assert.equal(blocked.json().error.code, 'RATE_LIMIT_EXCEEDED')
  assert.ok(Number(blocked.headers['retry-after']) >= 1)
  // Another address is not affected, and the real token still works from it.
  assert.equal((await guess(ADMIN_TOKEN, '198.51.100.21')).statusCode, 200)
})

test('the session seam: a control-panel session resolver lets an admin in without the token', async (t) => {
  const app = await adminTestApp('sqlite')
  t.after(() => app.close())
  // A second Fastify instance with the same services and a resolver, as the panel will mount it.
  const server = Fastify()
  installErrorHandler(server)
  const seen: string[] = []
  await adminApi(server, {
    services: app.services,
    sessionResolver: async (request) => (request.headers.cookie === 'gatehouse_admin=valid-session' ? { type: 'session', id: 'ada' } : undefined),
    routes: [(admin) => {
      admin.get('/whoami', async (request) => {
        seen.push(`${request.admin?.type}:${request.admin?.id}`)
        return { ok: true, data: request.admin }
      })
    }],
  })
  t.after(() => server.close())

  const withSession = await server.inject({ method: 'GET', url: `${ADMIN}/whoami`, headers: { cookie: 'gatehouse_admin=valid-session' } })
  assert.equal(withSession.statusCode, 200)
  assert.deepEqual(withSession.json().data, { type: 'session', id: 'ada' })
  const badSession = await server.inject({ method: 'GET', url: `${ADMIN}/whoami`, headers: { cookie: 'gatehouse_admin=forged' } })
  assert.equal(badSession.statusCode, 401)
  // An added route file sits behind the same check and sees the token principal too.
  const withToken = await server.inject({ method: 'GET', url: `${ADMIN}/whoami`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  assert.equal(withToken.statusCode, 200)
  assert.deepEqual(seen, ['session:ada', 'token:admin-token'])
  // A wrong bearer token is not rescued by a valid session cookie.
  const both = await server.inject({ method: 'GET', url: `${ADMIN}/whoami`, headers: { authorization: 'Bearer wrong', cookie: 'gatehouse_admin=valid-session' } })
  assert.equal(both.statusCode, 401)

  // The built app has no resolver: the cookie alone does not get in.
  assert.equal((await adminClient(app, null).get('/credentials', { cookie: 'gatehouse_admin=valid-session' })).statusCode, 401)
})
