// `gatehouse admin sessions list|end` and `gatehouse admin delete`: listings (table and
// --json) name sessions by a ses_… id, never the cookie; an ended session's cookie no longer
// opens the panel or the admin API while others go on; deleting an admin ends its sessions;
// the last admin is refused; each change is audited with the operator; every refusal names the
// flag typed. The CLI runs compiled, on the app's database.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createAdmin } from '../../src/auth/admin-accounts.js'
import { buildTestApp, testDialects, type TestApp, type TestDatabase } from '../helpers/test-app.js'
import { cliDatabase, runCli } from './helpers/cli.js'
import { ADMIN_PASSWORD, ADMIN_USER, get, login } from '../panel/helpers/panel-client.js'

const OTHER = 'other-admin'

/** 200 when the cookie still opens both the panel and the admin API; 'ended' when neither. */
async function opens(app: TestApp, cookie: string): Promise<'open' | 'ended'> {
  const panel = (await get(app, '/gatehouse/cp/status', cookie)).statusCode
  const api = (await app.app.inject({ url: '/gatehouse/admin/v1/credentials', headers: { cookie } })).statusCode
  if (panel === 200 && api === 200) return 'open'
  assert.deepEqual([panel, api], [303, 401], 'an ended session opens neither')
  return 'ended'
}

for (const dialect of await testDialects()) {
  test(`${dialect}: admin sessions list|end and admin delete end sessions at once, refuse the last admin, audit each, and name the flag typed`, async (t) => {
    const target = await cliDatabase(dialect)
    t.after(() => target.destroy())
    const database = target.open()
    const app = await buildTestApp({ dialect, database: { ...database, url: target.url, destroy: async () => {} } as TestDatabase })
    t.after(async () => { await app.close(); await database.close() })
    const env = { PLUGIN_GATEHOUSE_DATABASE_URL: target.url }
    const cli = (...args: string[]) => runCli(args, { env })
    await createAdmin(app.services.database.db, ADMIN_USER, ADMIN_PASSWORD)
    await createAdmin(app.services.database.db, OTHER, ADMIN_PASSWORD)
    const first = await login(app)
    const second = await login(app)
    const others = await login(app, OTHER, ADMIN_PASSWORD)

    // Listings: every live session, or one admin's; JSON and a table; never a cookie.
    const all = await cli('admin', 'sessions', 'list', '--json')
    assert.equal(all.code, 0, all.stderr)
    const listed = JSON.parse(all.stdout) as { id: string; username: string; current: boolean }[]
    assert.deepEqual(listed.map((s) => s.username).sort(), [OTHER, ADMIN_USER, ADMIN_USER].sort())
    for (const s of listed) assert.match(s.id, /^ses_[0-9a-f]{16}$/)
    for (const cookie of [first, second, others]) assert.ok(!all.stdout.includes(cookie.split('=')[1]), 'no cookie value is listed')
    const mine = JSON.parse((await cli('admin', 'sessions', 'list', '--username', ADMIN_USER, '--json')).stdout) as { id: string }[]
    assert.equal(mine.length, 2)
    const table = await cli('admin', 'sessions', 'list')
    assert.match(table.stdout, /^ID\s+USERNAME\s+STARTED\s+LAST SEEN\s+EXPIRES/)
    assert.equal(table.stdout.trim().split('\n').length, 4)

    // Refusals name the flag the operator typed.
    const refusals: [string[], string][] = [
      [['admin', 'sessions', 'list', '--username', 'nobody'], 'gatehouse: --username: no admin named nobody\n'],
      [['admin', 'sessions', 'end'], "gatehouse: give --id ses_… (one session) or --username NAME (all of that admin's sessions)\n"],
      [['admin', 'sessions', 'end', '--id', mine[0].id, '--username', ADMIN_USER], 'gatehouse: give --id or --username, not both\n'],
      [['admin', 'sessions', 'end', '--id', 'abc'], 'gatehouse: invalid --id: not a session id: ses_ and 16 hex digits, as the session listing shows\n'],
      [['admin', 'sessions', 'end', '--id', 'ses_0000000000000000'], 'gatehouse: --id: no live session ses_0000000000000000\n'],
      [['admin', 'sessions', 'end', '--username', 'nobody'], 'gatehouse: --username: no admin named nobody\n'],
      [['admin', 'delete', '--username', 'nobody'], 'gatehouse: --username: no admin named nobody\n'],
    ]
    for (const [args, stderr] of refusals) {
      const res = await cli(...args)
      assert.deepEqual([res.code, res.stderr], [1, stderr], args.join(' '))
    }
    assert.deepEqual(await Promise.all([first, second, others].map((c) => opens(app, c))), ['open', 'open', 'open'], 'refusals ended nothing')

    // One session by id: that cookie stops working at once, the admin's other one goes on.
    const endOne = await cli('admin', 'sessions', 'end', '--id', mine[0].id)
    assert.deepEqual([endOne.code, endOne.stdout], [0, `Ended 1 panel session of ${ADMIN_USER}\n`], endOne.stderr)
    const states = await Promise.all([first, second].map((c) => opens(app, c)))
    assert.deepEqual([...states].sort(), ['ended', 'open'])
    assert.equal(await opens(app, others), 'open')

    // Every session of an admin.
    const endAll = await cli('admin', 'sessions', 'end', '--username', ADMIN_USER, '--json')
    assert.equal(endAll.code, 0, endAll.stderr)
    assert.deepEqual((JSON.parse(endAll.stdout) as { ended: { id: string }[] }).ended.map((s) => s.id), [mine[1].id])
    assert.deepEqual(await Promise.all([first, second, others].map((c) => opens(app, c))), ['ended', 'ended', 'open'])

    // Deleting an admin ends its sessions; it can no longer sign in.
    const deleted = await cli('admin', 'delete', '--username', OTHER)
    assert.deepEqual([deleted.code, deleted.stdout], [0, `Deleted admin ${OTHER}; 1 panel session ended\n`], deleted.stderr)
    assert.equal(await opens(app, others), 'ended')
    await assert.rejects(login(app, OTHER, ADMIN_PASSWORD))
    assert.equal(await app.services.database.db.selectFrom('panel_sessions').select('id_digest').where('username', '=', OTHER).executeTakeFirst(), undefined)

    // The last admin stays: nobody could sign in to the panel otherwise.
    const last = await cli('admin', 'delete', '--username', ADMIN_USER)
    assert.equal(last.code, 1)
    assert.equal(last.stderr, `gatehouse: --username: ${ADMIN_USER} is the last admin and cannot be deleted: create another admin first (gatehouse admin create), so someone can still sign in to the control panel\n`)
    assert.equal(await opens(app, await login(app)), 'open')

    const audit = await app.services.database.db.selectFrom('control_audit').select(['action', 'outcome', 'actor_type', 'entity_id', 'summary', 'metadata'])
      .where('action', 'in', ['admin.sessions_ended', 'admin.deleted']).orderBy('id').execute()
    assert.deepEqual(audit.map((a) => [a.action, a.outcome, a.actor_type, a.entity_id, a.summary]), [
      ['admin.sessions_ended', 'success', 'cli', ADMIN_USER, `ended panel session ${mine[0].id} of admin ${ADMIN_USER}`],
      ['admin.sessions_ended', 'success', 'cli', ADMIN_USER, `ended 1 panel session of admin ${ADMIN_USER}`],
      ['admin.deleted', 'success', 'cli', OTHER, `deleted admin ${OTHER}; 1 panel session ended`],
      ['admin.deleted', 'denied', 'cli', ADMIN_USER, `refused to delete admin ${ADMIN_USER}: it is the last admin`],
    ])
    assert.deepEqual(JSON.parse(audit[1].metadata as string), { sessionIds: [mine[1].id], count: 1 })
    const verify = await cli('audit', 'verify')
    assert.equal(verify.code, 0, verify.stdout + verify.stderr)
  })
}
