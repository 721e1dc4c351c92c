// The panel's database state on both engines: sessions (resolve by cookie, flash shown
// once, expiry, end with the admin account) and the login throttle's counters, which must
// count every concurrent attempt (one atomic upsert each, before the password is checked)
// so parallel guessing is not cheaper than serial guessing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyRequest } from 'fastify'
import { testDatabase, testDialects, testSettings } from '../helpers/test-app.js'
import { PanelSessions } from '../../src/panel/panel-sessions.js'
import { LoginThrottle, THROTTLE_LIMITS } from '../../src/auth/login-throttle.js'
import { createAdmin } from '../../src/auth/admin-accounts.js'

const requestWith = (cookie: string) => ({ headers: { cookie }, method: 'GET' }) as unknown as FastifyRequest

for (const dialect of await testDialects()) {
  test(`${dialect}: sessions and login throttle counters`, async (t) => {
    const database = await testDatabase(dialect, { poolSize: 8 })
    t.after(() => database.destroy())
    await createAdmin(database.db, 'alice', 'a long enough password')
    const sessions = new PanelSessions(database, testSettings({ PLUGIN_GATEHOUSE_DATABASE_URL: database.url }))

    const cookie = (await sessions.create('alice')).split(';')[0]
    const s = await sessions.resolve(requestWith(cookie))
    assert.equal(s?.username, 'alice')
    assert.equal(await sessions.resolve(requestWith('gatehouse_session=' + 'A'.repeat(43))), undefined)
    if (!s) return
    await sessions.setFlash(s, { kind: 'ok', text: 'done' })
    const withFlash = await sessions.resolve(requestWith(cookie))
    assert.deepEqual(withFlash && await sessions.takeFlash(withFlash), { kind: 'ok', text: 'done' })
    assert.equal((await sessions.resolve(requestWith(cookie)))?.flash, null)
    // Removing the admin ends its sessions.
    await database.db.deleteFrom('admins').where('username', '=', 'alice').execute()
    assert.equal(await sessions.resolve(requestWith(cookie)), undefined)

    const throttle = new LoginThrottle(database)
    const n = THROTTLE_LIMITS.perAddress
    const waits = await Promise.all(Array.from({ length: n + 3 }, (_, i) => throttle.reserve('192.0.2.7', `name-${i}`)))
    assert.equal(waits.filter((w) => w === 0).length, n, 'exactly the limit may try a password')
    const row = await database.db.selectFrom('panel_login_throttle').select('failures').where('throttle_key', '=', 'address:192.0.2.7').executeTakeFirst()
    assert.equal(Number(row?.failures), n, 'refused attempts are taken back')
    assert.ok(await throttle.retryAfter('192.0.2.7', 'someone') > 0)
    assert.equal(await throttle.retryAfter('192.0.2.8', 'someone'), 0)
  })
}
