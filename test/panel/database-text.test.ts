// Text PostgreSQL cannot store or compare (a NUL character, a lone surrogate) never reaches the
// database from the control panel or the admin API, as it never does from the machine API: the
// login answers its usual refusal, every other input a 400 naming the field. Without the check
// PostgreSQL failed each of these with a 500.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createAdmin } from '../../src/auth/admin-accounts.js'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { ADMIN_PASSWORD, ADMIN_USER, get, signedIn, submitLogin } from './helpers/panel-client.js'

const ADMIN = 'adm_database_text_3f9c1e7a5b2d48c6'
const NUL = '%00'

for (const dialect of await testDialects()) {
  test(`${dialect}: NUL in the login, the simulator, admin API query strings and paths is refused by name, never a 500`, async (t) => {
    const app = await buildTestApp({ dialect, env: { PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN, PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' } })
    t.after(() => app.close())
    await createAdmin(app.services.database.db, ADMIN_USER, ADMIN_PASSWORD)

    // The login: the refusal any unknown name gets; a lone surrogate likewise.
    for (const username of ['nul\u0000user', `${ADMIN_USER}\u0000`, 'half\ud800']) {
      const refused = await submitLogin(app, username, ADMIN_PASSWORD)
      assert.equal(refused.statusCode, 401, refused.body.slice(0, 300))
      assert.match(refused.body, /Unknown username or wrong password\./)
    }

    // The admin API: query strings and path parameters, as the body already was.
    const admin = (url: string) => app.app.inject({ url, headers: { authorization: `Bearer ${ADMIN}` } })
    const cases: [string, string][] = [
      [`/gatehouse/admin/v1/entries?filter=title:a${NUL}b`, 'filter'],
      [`/gatehouse/admin/v1/products?q=shirt${NUL}`, 'q'],
      [`/gatehouse/admin/v1/workflows?credentialId=cred${NUL}`, 'credentialId'],
      [`/gatehouse/admin/v1/credentials/cred${NUL}x`, 'id'],
      [`/gatehouse/admin/v1/control/audit?entityId=a${NUL}`, 'entityId'],
    ]
    for (const [url, param] of cases) {
      const res = await admin(url)
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`)
      assert.equal(res.json().error.code, 'INVALID_REQUEST')
      assert.equal(res.json().error.details[0].param, param, url)
      assert.match(res.json().error.details[0].problem, /must not contain (NUL characters|lone UTF-16 surrogates)/)
    }

    // The panel: the simulator's credentialId and a screen's query string.
    const panel = await signedIn(app)
    const simulated = await panel.submit('/gatehouse/cp/policies/simulate', { actionType: 'order.refund', credentialId: 'cred\u0000x', payload: '{}', approvalId: '' })
    assert.equal(simulated.statusCode, 400, simulated.body.slice(0, 500))
    assert.match(simulated.body, /<code>credentialId<\/code>: must not contain NUL characters/)
    const audit = await get(app, `/gatehouse/cp/audit?q=x${NUL}`, panel.cookie)
    assert.equal(audit.statusCode, 400, audit.body.slice(0, 500))
    assert.match(audit.body, /<code>q<\/code>: must not contain NUL characters/)
    // Ordinary text still works everywhere.
    assert.equal((await admin('/gatehouse/admin/v1/entries?filter=title:ab')).statusCode, 200)
    assert.equal((await panel.page('/gatehouse/cp/audit?from=1')).statusCode, 200)
  })
}
