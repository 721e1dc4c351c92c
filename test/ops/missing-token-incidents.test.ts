// Requests without any token (a start-up poller hitting /health) are not failed
// authentication attempts: they never open the critical auth_failures incident, only at
// most an auth_missing warning that points at /livez and /readyz. Wrong tokens still do.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'

interface Incident { category: string; status: string; severity: string; value: number; recommendedAction: string }

for (const dialect of await testDialects()) {
  test(`${dialect}: many requests without a token open an auth_missing warning, not a critical auth_failures incident`, async (t) => {
    const app = await buildTestApp({ dialect, env: { PLUGIN_GATEHOUSE_INCIDENT_WINDOW_SECONDS: '120' } })
    t.after(() => app.close())
    const ops = await app.issueToken(['incidents:read', 'metrics:read'])
    const incidents = async (): Promise<Incident[]> => (await app.get('/gatehouse/v1/incidents?status=open', ops)).json().data

    for (let i = 0; i < 80; i++) {
      const res = await app.get('/gatehouse/v1/health')
      assert.equal(res.statusCode, 401)
    }
    const open = await incidents()
    assert.equal(open.find((i) => i.category === 'auth_failures'), undefined, 'no auth_failures incident for missing tokens')
    const missing = open.find((i) => i.category === 'auth_missing')
    assert.ok(missing, 'an auth_missing incident')
    assert.equal(missing.severity, 'warn')
    assert.equal(missing.value, 80)
    assert.match(missing.recommendedAction, /\/livez and \/readyz/)
    const window = (await app.get('/gatehouse/v1/metrics', ops)).json().data.window
    assert.equal(window.auth_missing, 80)
    assert.equal(window.auth_failures, 0)

    // Wrong tokens are still authentication failures, and still critical past the threshold.
    for (let i = 0; i < 120; i++) await app.get('/gatehouse/v1/health', `gth_wrong-${i}`)
    const after = await incidents()
    const failures = after.find((i) => i.category === 'auth_failures')
    assert.equal(failures?.severity, 'critical')
    assert.equal(failures?.value, 120)
    const everyMissing = (await app.get('/gatehouse/v1/incidents?status=all', ops)).json().data.filter((i: Incident) => i.category === 'auth_missing')
    assert.ok(everyMissing.length > 0 && everyMissing.every((i: Incident) => i.severity === 'warn'), 'missing tokens never reach critical')
  })
}

test('README and getting-started name /livez and /readyz for start-up checks', async () => {
  const { readFileSync } = await import('node:fs')
  for (const file of ['README.md', 'docs/getting-started.md']) {
    const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')
    assert.match(text, /`GET \/livez`/, file)
    assert.match(text, /`GET \/readyz`/, file)
    assert.match(text, /need no token/, file)
  }
})
