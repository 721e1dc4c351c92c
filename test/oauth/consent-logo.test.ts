// The consent page shows a client's logo only when it is served from Gatehouse's own origin
// (BASE_URL: same scheme, host and port); any other logo is left out, not even named, so a
// client cannot make the operator's browser fetch from its servers or dress itself up as
// someone else's application with a borrowed picture. The page's own CSP (img-src 'self')
// would block such a fetch too; the rule is that it is never asked for.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { oauthSite } from './helpers/oauth-apps.js'
import { authorizeUrl, Jar, pkce, register } from './helpers/hand-flow.js'

const CALLBACK = 'http://127.0.0.1:9/callback'

for (const dialect of await testDialects()) {
  test(`${dialect}: the consent page shows a client's logo only when Gatehouse itself serves it`, async (t) => {
    const site = await oauthSite(dialect, {}, { second: false })
    t.after(() => site.close())
    const base = new URL(site.base)
    const jar = new Jar()
    await jar.login(site.base)

    /** The consent page a client registered with `logo` is shown with: its client section and the page's CSP. */
    const consentFor = async (logo: string) => {
      const client = await register(site.base, CALLBACK, 'Logo Agent', { logo_uri: logo })
      const start = await jar.follow(authorizeUrl(site.base, client, { scope: 'products:read', code_challenge: pkce().challenge, code_challenge_method: 'S256' }), site.base)
      assert.match(new URL(start.url).pathname, /^\/gatehouse\/cp\/oauth\/consent\//)
      const html = await start.res.text()
      const section = /<section class="consent-client">([\s\S]*?)<\/section>/.exec(html)?.[1]
      assert.ok(section, 'the page has its client section')
      return { html, section, csp: String(start.res.headers.get('content-security-policy')) }
    }

    const local = `${site.base}/gatehouse/cp/agent-logo.png`
    const shown = await consentFor(local)
    assert.match(shown.section, new RegExp(`<img src="${local.replace(/[.:/]/g, '\\$&')}" alt="" width="48" height="48">`))
    assert.match(shown.csp, /img-src 'self'/)

    for (const elsewhere of [
      'https://cdn.example/logo.png',
      `http://127.0.0.1:${Number(base.port) + 1}/gatehouse/cp/agent-logo.png`,
      `https://${base.host}/gatehouse/cp/agent-logo.png`,
      `http://localhost:${base.port}/gatehouse/cp/agent-logo.png`,
      `http://127.0.0.1.nip.example:${base.port}/logo.png`,
    ]) {
      const omitted = await consentFor(elsewhere)
      assert.doesNotMatch(omitted.section, /<img/, elsewhere)
      assert.ok(!omitted.html.includes(elsewhere), `the page does not even name ${elsewhere}`)
      assert.match(omitted.html, /Allow Logo Agent to use Gatehouse\?/, 'the rest of the page is as usual')
    }
  })
}
