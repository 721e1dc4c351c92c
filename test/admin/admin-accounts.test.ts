// The admin API's admin accounts and sessions: GET /admins and /admins/sessions (the caller's
// own session marked), POST /admins/sessions/end (one by id, or all of an admin's: the cookies
// stop working at once), DELETE /admins/{username} (its sessions end; the last admin is a 409,
// also when two admins delete each other at the same moment). Bad input is a 400 naming the
// field; every change is audited with the admin behind the request.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createAdmin } from '../../src/auth/admin-accounts.js'
import { testDialects, type TestApp } from '../helpers/test-app.js'
import { adminClient, adminTestApp, dataOf } from './helpers/admin-client.js'
import { ADMIN_PASSWORD, csrfOf, get, login } from '../panel/helpers/panel-client.js'

const cookieOpens = async (app: TestApp, cookie: string) => (await app.app.inject({ url: '/gatehouse/admin/v1/admins', headers: { cookie } })).statusCode

for (const dialect of await testDialects()) {
  test(`${dialect}: admin API lists admins and live sessions, ends sessions, deletes admins but never the last, audits each`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const api = adminClient(app)
    for (const name of ['alice', 'bob']) await createAdmin(app.services.database.db, name, ADMIN_PASSWORD)
    const alice1 = await login(app, 'alice', ADMIN_PASSWORD)
    const alice2 = await login(app, 'alice', ADMIN_PASSWORD)
    const bob = await login(app, 'bob', ADMIN_PASSWORD)

    assert.deepEqual(dataOf(await api.get('/admins')).map((a: { username: string; liveSessions: number }) => [a.username, a.liveSessions]), [['alice', 2], ['bob', 1]])
    const sessions = dataOf(await api.get('/admins/sessions?username=alice')) as { id: string; username: string; current: boolean }[]
    assert.equal(sessions.length, 2)
    assert.ok(sessions.every((s) => /^ses_[0-9a-f]{16}$/.test(s.id) && s.username === 'alice' && !s.current))
    // Through a session, the caller's own is marked.
    const viaSession = await app.app.inject({ url: '/gatehouse/admin/v1/admins/sessions', headers: { cookie: bob } })
    assert.deepEqual(dataOf(viaSession).map((s: { username: string; current: boolean }) => [s.username, s.current]),
      [['alice', false], ['alice', false], ['bob', true]])

    // Bad input: a 400 naming the field; unknown names and ids: 404. Nothing ended.
    const bad: [Promise<{ statusCode: number; json(): { error: { code: string; details?: { param: string }[] } } }>, number, string, string?][] = [
      [api.get('/admins/sessions?username=a%20b'), 400, 'INVALID_REQUEST', 'username'],
      [api.get('/admins/sessions?user=alice'), 400, 'INVALID_REQUEST', 'user'],
      [api.get('/admins/sessions?username=nobody'), 404, 'NOT_FOUND'],
      [api.post('/admins/sessions/end', {}), 400, 'INVALID_REQUEST', '(body)'],
      [api.post('/admins/sessions/end', { id: 'ses_xyz' }), 400, 'INVALID_REQUEST', 'id'],
      [api.post('/admins/sessions/end', { id: sessions[0].id, username: 'alice' }), 400, 'INVALID_REQUEST', '(body)'],
      [api.post('/admins/sessions/end', { username: 'alice', extra: 1 }), 400, 'INVALID_REQUEST', 'extra'],
      [api.post('/admins/sessions/end', { id: 'ses_0123456789abcdef' }), 404, 'NOT_FOUND'],
      [api.post('/admins/sessions/end', { username: 'nobody' }), 404, 'NOT_FOUND'],
      [api.del('/admins/no%20such'), 400, 'INVALID_REQUEST', 'username'],
      [api.del('/admins/nobody'), 404, 'NOT_FOUND'],
    ]
    for (const [res, status, code, param] of bad) {
      const r = await res
      assert.deepEqual([r.statusCode, r.json().error.code], [status, code])
      if (param) assert.deepEqual(r.json().error.details?.map((d) => d.param), [param])
    }
    assert.deepEqual(await Promise.all([alice1, alice2, bob].map((c) => cookieOpens(app, c))), [200, 200, 200])

    // A session changing state needs the panel's CSRF token in the header, as every admin route does.
    assert.equal((await app.app.inject({ method: 'POST', url: '/gatehouse/admin/v1/admins/sessions/end', headers: { cookie: bob, 'content-type': 'application/json' }, payload: JSON.stringify({ username: 'alice' }) })).statusCode, 403)
    assert.deepEqual(await Promise.all([alice1, alice2].map((c) => cookieOpens(app, c))), [200, 200])

    // One session by id, then all of an admin's (here by bob, through his session).
    const one = dataOf(await api.post('/admins/sessions/end', { id: sessions[0].id }))
    assert.deepEqual(one.ended.map((s: { id: string }) => s.id), [sessions[0].id])
    assert.deepEqual([...(await Promise.all([alice1, alice2].map((c) => cookieOpens(app, c))))].sort(), [200, 401])
    const csrf = csrfOf((await get(app, '/gatehouse/cp/status', bob)).body)
    const rest = await app.app.inject({ method: 'POST', url: '/gatehouse/admin/v1/admins/sessions/end', headers: { cookie: bob, 'x-gatehouse-csrf': csrf, 'content-type': 'application/json' }, payload: JSON.stringify({ username: 'alice' }) })
    assert.equal(rest.statusCode, 200, rest.body)
    assert.deepEqual(rest.json().data.ended.map((s: { id: string }) => s.id), [sessions[1].id])
    assert.deepEqual(await Promise.all([alice1, alice2, bob].map((c) => cookieOpens(app, c))), [401, 401, 200])

    // Delete: the admin's sessions end with it; the last admin is refused and stays.
    const alice3 = await login(app, 'alice', ADMIN_PASSWORD)
    assert.deepEqual(dataOf(await api.del('/admins/alice')), { username: 'alice', sessionsEnded: 1 })
    assert.equal(await cookieOpens(app, alice3), 401)
    await assert.rejects(login(app, 'alice', ADMIN_PASSWORD))
    const last = await api.del('/admins/bob')
    assert.deepEqual([last.statusCode, last.json().error.code], [409, 'CONFLICT'])
    assert.match(last.json().error.message, /bob is the last admin and cannot be deleted/)
    assert.deepEqual(dataOf(await api.get('/admins')).map((a: { username: string }) => a.username), ['bob'])
    assert.equal(await cookieOpens(app, bob), 200)

    const audit = await app.services.database.db.selectFrom('control_audit').select(['action', 'outcome', 'actor_type', 'actor_id', 'entity_id'])
      .where('action', 'in', ['admin.sessions_ended', 'admin.deleted']).orderBy('id').execute()
    assert.deepEqual(audit.map((a) => [a.action, a.outcome, a.actor_type, a.actor_id, a.entity_id]), [
      ['admin.sessions_ended', 'success', 'admin', 'admin-token', 'alice'],
      ['admin.sessions_ended', 'success', 'admin', 'bob', 'alice'],
      ['admin.deleted', 'success', 'admin', 'admin-token', 'alice'],
      ['admin.deleted', 'denied', 'admin', 'admin-token', 'bob'],
    ])
  })

  test(`${dialect}: two admins deleted at the same moment never leave none`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const api = adminClient(app)
    for (let round = 0; round < 8; round++) {
      const names = [`a${round}`, `b${round}`]
      for (const name of names) await createAdmin(app.services.database.db, name, ADMIN_PASSWORD)
      const answers = await Promise.all(names.map((n) => api.del(`/admins/${n}`)))
      assert.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 409], `round ${round}: ${answers.map((r) => r.body).join(' ')}`)
      const left = dataOf(await api.get('/admins')) as { username: string }[]
      assert.equal(left.length, 1, `round ${round}`)
      // The survivor goes in the next round's race with two new ones.
      await api.del(`/admins/${left[0].username}`).then((r) => assert.equal(r.statusCode, 409))
      await app.services.database.db.deleteFrom('admins').execute()
    }
  })
}
