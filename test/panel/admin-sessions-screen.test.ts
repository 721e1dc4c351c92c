// The admins part of the Accounts screen over HTTP: every admin with its live sessions; an
// admin's page lists its sessions (this one marked) with *End*, *End all sessions* and
// *Delete admin…*; an ended session's cookie stops opening the panel at once; deleting an
// admin ends its sessions; the last admin is refused (no link, and a 409 page if posted
// anyway); ending one's own session or deleting oneself signs out. Each action is audited as
// the signed-in admin.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createAdmin } from '../../src/auth/admin-accounts.js'
import { ADMIN_PASSWORD, ADMIN_USER, get, login, panelApp, post, signedIn } from './helpers/panel-client.js'

const OTHER = 'night-shift'
const sessionIds = (body: string) => [...body.matchAll(/<code>(ses_[0-9a-f]{16})<\/code>/g)].map((m) => m[1])

test('Accounts lists admins; an admin page ends sessions and deletes admins, never the last, signing out when it is oneself', async (t) => {
  const app = await panelApp()
  t.after(() => app.close())
  await createAdmin(app.services.database.db, OTHER, ADMIN_PASSWORD)
  const s = await signedIn(app)
  const otherA = await login(app, OTHER, ADMIN_PASSWORD)
  const otherB = await login(app, OTHER, ADMIN_PASSWORD)
  const opens = async (cookie: string) => (await get(app, '/gatehouse/cp/status', cookie)).statusCode

  const accounts = await s.page('/gatehouse/cp/accounts')
  assert.equal(accounts.statusCode, 200)
  assert.match(accounts.body, /<h2>Control-panel admins<\/h2>/)
  assert.match(accounts.body, new RegExp(`href="/gatehouse/cp/accounts/admins/${OTHER}">${OTHER}</a></div></td><td data-label="Created"><div>[^<]*</div></td><td data-label="Live sessions"><div>2</div>`))

  // Its page: both sessions; mine is not among them.
  const page = await s.page(`/gatehouse/cp/accounts/admins/${OTHER}`)
  assert.equal(page.statusCode, 200)
  const ids = sessionIds(page.body)
  assert.equal(ids.length, 2)
  assert.doesNotMatch(page.body, /this session/)
  assert.match(page.body, /Delete admin…/)
  // Each row's End says which session it ends (for screen readers), and times read as on every other screen.
  for (const id of ids) assert.ok(page.body.includes(`aria-label="End session ${id}"`), id)
  assert.match(page.body, /<td data-label="Started"><div>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z<\/div>/)
  assert.doesNotMatch(page.body, /\d{2}:\d{2}:\d{2}\.\d{3}Z/)
  // My own page marks this session.
  const mine = await s.page(`/gatehouse/cp/accounts/admins/${ADMIN_USER}`)
  assert.match(mine.body, /this session/)

  // End one: its cookie stops working, the other goes on.
  const ended = await s.submit(`/gatehouse/cp/accounts/admins/${OTHER}/sessions/end`, { id: ids[0] })
  assert.equal(ended.statusCode, 303)
  assert.equal(ended.headers.location, `/gatehouse/cp/accounts/admins/${OTHER}`)
  assert.deepEqual([...(await Promise.all([otherA, otherB].map(opens)))].sort(), [200, 303])
  assert.match((await s.page(`/gatehouse/cp/accounts/admins/${OTHER}`)).body, new RegExp(`Ended session ${ids[0]}`))
  // A session id that is not this admin's is a 404 and ends nothing.
  assert.equal((await s.submit(`/gatehouse/cp/accounts/admins/${OTHER}/sessions/end`, { id: ids[0] })).statusCode, 404)

  // Delete the other admin through its confirmation page: its remaining session ends.
  const confirm = await s.page(`/gatehouse/cp/accounts/admins/${OTHER}/confirm-delete`)
  assert.match(confirm.body, /The account is removed and its 1 live session ended at once/)
  const deleted = await s.submit(`/gatehouse/cp/accounts/admins/${OTHER}/delete`)
  assert.deepEqual([deleted.statusCode, deleted.headers.location], [303, '/gatehouse/cp/accounts#admins'])
  assert.deepEqual(await Promise.all([otherA, otherB].map(opens)), [303, 303])
  await assert.rejects(login(app, OTHER, ADMIN_PASSWORD))
  assert.equal((await s.page(`/gatehouse/cp/accounts/admins/${OTHER}`)).statusCode, 404)

  // Now the last admin: no delete link, and posting anyway is refused; still signed in.
  const alone = await s.page(`/gatehouse/cp/accounts/admins/${ADMIN_USER}`)
  assert.match(alone.body, /The last admin cannot be deleted/)
  assert.doesNotMatch(alone.body, /Delete admin…/)
  const refused = await s.submit(`/gatehouse/cp/accounts/admins/${ADMIN_USER}/delete`)
  assert.equal(refused.statusCode, 409)
  assert.match(refused.body, /is the last admin and cannot be deleted/)
  assert.equal(await opens(s.cookie), 200)

  // Ending one's own session signs out (the cookie is cleared).
  const [own] = sessionIds(alone.body)
  const out = await s.submit(`/gatehouse/cp/accounts/admins/${ADMIN_USER}/sessions/end`, { id: own })
  assert.deepEqual([out.statusCode, out.headers.location], [303, '/gatehouse/cp/login'])
  assert.match(String(out.headers['set-cookie']), /gatehouse_session=;/)
  assert.equal(await opens(s.cookie), 303)

  const audit = await app.services.database.db.selectFrom('control_audit').select(['action', 'outcome', 'actor_type', 'actor_id', 'entity_id'])
    .where('action', 'in', ['admin.sessions_ended', 'admin.deleted']).orderBy('id').execute()
  assert.deepEqual(audit.map((a) => [a.action, a.outcome, a.actor_type, a.actor_id, a.entity_id]), [
    ['admin.sessions_ended', 'success', 'admin', ADMIN_USER, OTHER],
    ['admin.deleted', 'success', 'admin', ADMIN_USER, OTHER],
    ['admin.deleted', 'denied', 'admin', ADMIN_USER, ADMIN_USER],
    ['admin.sessions_ended', 'success', 'admin', ADMIN_USER, ADMIN_USER],
  ])
})

test('deleting one\'s own account (not the last) signs out; end all sessions of another admin', async (t) => {
  const app = await panelApp()
  t.after(() => app.close())
  await createAdmin(app.services.database.db, OTHER, ADMIN_PASSWORD)
  const otherCookie = await login(app, OTHER, ADMIN_PASSWORD)
  const s = await signedIn(app)

  const all = await s.submit(`/gatehouse/cp/accounts/admins/${OTHER}/sessions/end-all`)
  assert.equal(all.statusCode, 303)
  assert.equal((await get(app, '/gatehouse/cp/status', otherCookie)).statusCode, 303)
  assert.match((await s.page(`/gatehouse/cp/accounts/admins/${OTHER}`)).body, new RegExp(`Ended 1 session of ${OTHER}`))

  const self = await s.submit(`/gatehouse/cp/accounts/admins/${ADMIN_USER}/delete`)
  assert.deepEqual([self.statusCode, self.headers.location], [303, '/gatehouse/cp/login'])
  assert.equal((await get(app, '/gatehouse/cp/status', s.cookie)).statusCode, 303)
  await assert.rejects(login(app))
  // A form of the signed-out session is refused like any other without a session.
  assert.equal((await post(app, `/gatehouse/cp/accounts/admins/${OTHER}/delete`, { _csrf: s.csrf }, s.cookie)).statusCode, 303)
})
