// Login throttling: after THROTTLE_LIMITS.perUsername failures for one name from one address,
// or perAddress failures from one address, or perUsernameTotal failures for a name from
// anywhere (then for the addresses that failed), logins are refused with 429 (even with the
// right password) until the window ends; other names and clean addresses are unaffected, and
// a successful login clears its name's counts. Counts live in the database.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { THROTTLE_LIMITS } from '../../src/auth/login-throttle.js'
import { ADMIN_PASSWORD, ADMIN_USER, panelApp, setCookie, submitLogin } from './helpers/panel-client.js'
import { createAdmin } from '../../src/auth/admin-accounts.js'
import { buildTestApp, testDialects } from '../helpers/test-app.js'

test('repeated failures lock a name at an address, a name everywhere it failed, then an address, until the window ends', async (t) => {
  const app = await panelApp()
  t.after(() => app.close())
  await createAdmin(app.services.database.db, 'second-admin', ADMIN_PASSWORD)
  const from = (remoteAddress: string) => ({ remoteAddress })

  // A success clears the name's count: failures before it do not add up with later ones.
  for (let i = 0; i < THROTTLE_LIMITS.perUsername - 1; i++) assert.equal((await submitLogin(app, ADMIN_USER, 'wrong', from('10.0.0.1'))).statusCode, 401)
  assert.equal((await submitLogin(app, ADMIN_USER, ADMIN_PASSWORD, from('10.0.0.1'))).statusCode, 303)

  // Per username at one address.
  for (let i = 0; i < THROTTLE_LIMITS.perUsername; i++) assert.equal((await submitLogin(app, ADMIN_USER, 'wrong', from('10.0.1.1'))).statusCode, 401)
  const locked = await submitLogin(app, ADMIN_USER, ADMIN_PASSWORD, from('10.0.1.1'))
  assert.equal(locked.statusCode, 429)
  assert.match(locked.body, /Too many failed logins/)
  assert.ok(Number(locked.headers['retry-after']) > 0 && Number(locked.headers['retry-after']) <= THROTTLE_LIMITS.windowMinutes * 60)
  assert.equal(setCookie(locked, 'gatehouse_session'), undefined)
  // Names differ only in case: the same account, the same lock.
  assert.equal((await submitLogin(app, ADMIN_USER.toUpperCase(), ADMIN_PASSWORD, from('10.0.1.1'))).statusCode, 429)
  // Someone else's wrong passwords do not lock the admin out where it has not failed.
  assert.equal((await submitLogin(app, ADMIN_USER, ADMIN_PASSWORD, from('10.0.2.1'))).statusCode, 303)

  // Guessed from many addresses: past perUsernameTotal, every address that failed for the name
  // is refused, and a clean one (the admin's) still signs in.
  const guessers = Math.ceil(THROTTLE_LIMITS.perUsernameTotal / (THROTTLE_LIMITS.perUsername - 1))
  for (let g = 0; g < guessers; g++) {
    for (let i = 0; i < THROTTLE_LIMITS.perUsername - 1; i++) await submitLogin(app, 'second-admin', 'wrong', from(`10.5.${g}.1`))
  }
  assert.equal((await submitLogin(app, 'second-admin', ADMIN_PASSWORD, from('10.5.0.1'))).statusCode, 429, 'an address that guessed')
  assert.equal((await submitLogin(app, 'second-admin', 'wrong', from('10.6.0.1'))).statusCode, 401, 'a clean address is heard once')
  assert.equal((await submitLogin(app, 'second-admin', ADMIN_PASSWORD, from('10.6.0.1'))).statusCode, 429, 'then it has failed too')
  assert.equal((await submitLogin(app, 'second-admin', ADMIN_PASSWORD, from('10.7.0.1'))).statusCode, 303, 'the admin, from its own address')

  // Per address, across names.
  for (let i = 0; i < THROTTLE_LIMITS.perAddress; i++) assert.equal((await submitLogin(app, `guess-${i}`, 'wrong', from('10.9.9.9'))).statusCode, 401)
  assert.equal((await submitLogin(app, 'second-admin', ADMIN_PASSWORD, from('10.9.9.9'))).statusCode, 429)
  assert.equal((await submitLogin(app, 'second-admin', ADMIN_PASSWORD, from('10.9.9.10'))).statusCode, 303)

  // Once the window has passed, all may log in again.
  const past = Date.now() - (THROTTLE_LIMITS.windowMinutes * 60_000 + 1000)
  await app.database.db.updateTable('panel_login_throttle').set({ window_started_at: past }).execute()
  assert.equal((await submitLogin(app, ADMIN_USER, ADMIN_PASSWORD, from('10.0.1.1'))).statusCode, 303)
  assert.equal((await submitLogin(app, 'second-admin', ADMIN_PASSWORD, from('10.9.9.9'))).statusCode, 303)
})

// Each attempt is reserved (counted) before the password is checked, so parallel guesses
// cannot all pass the throttle before the first failure is counted.
for (const dialect of await testDialects()) {
  test(`${dialect}: parallel wrong-password logins for one name from one address reach the password check at most perUsername times`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    await createAdmin(app.services.database.db, ADMIN_USER, ADMIN_PASSWORD)
    const n = THROTTLE_LIMITS.perUsername + 7
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => submitLogin(app, ADMIN_USER, `wrong-${i}`, { remoteAddress: '10.3.0.1' })))
    const codes = answers.map((a) => a.statusCode)
    assert.equal(codes.filter((c) => c === 401).length, THROTTLE_LIMITS.perUsername, codes.join(' '))
    assert.equal(codes.filter((c) => c === 429).length, n - THROTTLE_LIMITS.perUsername, codes.join(' '))
    assert.equal((await submitLogin(app, ADMIN_USER, ADMIN_PASSWORD, { remoteAddress: '10.3.0.1' })).statusCode, 429)

    // A success undoes its reservation: it counts neither against its name nor its address.
    await app.database.db.deleteFrom('panel_login_throttle').execute()
    assert.equal((await submitLogin(app, ADMIN_USER, ADMIN_PASSWORD, { remoteAddress: '10.3.2.1' })).statusCode, 303)
    const rows = await app.database.db.selectFrom('panel_login_throttle').select(['throttle_key', 'failures']).execute()
    assert.deepEqual(rows.filter((r) => Number(r.failures) > 0), [])
  })
}
