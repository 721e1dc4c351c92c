// `gatehouse admin set-password` ends the account's panel sessions: a cookie issued before the
// change no longer opens the panel or the admin API, other admins' sessions go on, and the
// change is audited (without the password). The CLI runs compiled, on the app's database.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createAdmin } from '../../src/auth/admin-accounts.js'
import { buildTestApp, testDialects, type TestDatabase } from '../helpers/test-app.js'
import { cliDatabase, runCli } from './helpers/cli.js'
import { ADMIN_PASSWORD, ADMIN_USER, get, login } from '../panel/helpers/panel-client.js'

const NEW_PASSWORD = 'a brand new passphrase 42'

for (const dialect of await testDialects()) {
  test(`${dialect}: admin set-password ends that admin's sessions (panel and admin API) and is audited`, async (t) => {
    const target = await cliDatabase(dialect)
    t.after(() => target.destroy())
    const database = target.open()
    const app = await buildTestApp({ dialect, database: { ...database, url: target.url, destroy: async () => {} } as TestDatabase })
    t.after(() => app.close())
    await createAdmin(app.services.database.db, ADMIN_USER, ADMIN_PASSWORD)
    await createAdmin(app.services.database.db, 'other-admin', ADMIN_PASSWORD)
    const old = await login(app)
    const bystander = await login(app, 'other-admin', ADMIN_PASSWORD)
    assert.equal((await get(app, '/gatehouse/cp/status', old)).statusCode, 200)
    assert.equal((await app.app.inject({ url: '/gatehouse/admin/v1/credentials', headers: { cookie: old } })).statusCode, 200)

    const changed = await runCli(['admin', 'set-password', '--username', ADMIN_USER, '--password-stdin'], { env: { PLUGIN_GATEHOUSE_DATABASE_URL: target.url }, input: `${NEW_PASSWORD}\n` })
    assert.equal(changed.code, 0, changed.stderr)
    assert.equal(changed.stdout, `Password of ${ADMIN_USER} changed; 1 panel session ended\n`)

    const page = await get(app, '/gatehouse/cp/status', old)
    assert.equal(page.statusCode, 303)
    assert.match(String(page.headers.location), /^\/gatehouse\/cp\/login/)
    assert.equal((await app.app.inject({ url: '/gatehouse/admin/v1/credentials', headers: { cookie: old } })).statusCode, 401)
    assert.equal((await get(app, '/gatehouse/cp/status', bystander)).statusCode, 200, 'another admin stays signed in')
    // The new password works; the old one no longer does.
    assert.equal((await get(app, '/gatehouse/cp/status', await login(app, ADMIN_USER, NEW_PASSWORD))).statusCode, 200)
    await assert.rejects(login(app, ADMIN_USER, ADMIN_PASSWORD))

    const audit = await app.services.database.db.selectFrom('control_audit').select(['action', 'actor_type', 'entity_type', 'entity_id', 'summary', 'metadata'])
      .where('action', '=', 'admin.password_changed').execute()
    assert.equal(audit.length, 1)
    assert.deepEqual([audit[0].actor_type, audit[0].entity_type, audit[0].entity_id, audit[0].summary, JSON.parse(audit[0].metadata as string)],
      ['cli', 'admin', ADMIN_USER, `changed the password of admin ${ADMIN_USER}; 1 panel session ended`, { sessionsEnded: 1 }])
    assert.ok(!JSON.stringify(audit).includes(NEW_PASSWORD))

    const unknown = await runCli(['admin', 'set-password', '--username', 'nobody', '--password-stdin'], { env: { PLUGIN_GATEHOUSE_DATABASE_URL: target.url }, input: NEW_PASSWORD })
    assert.equal(unknown.code, 1)
    assert.equal(unknown.stderr, 'gatehouse: No admin named nobody\n')
  })
}
