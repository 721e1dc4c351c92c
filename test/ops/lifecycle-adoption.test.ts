// /lifecycle flags every credential's state with a risk level and an action; /adoption/metrics
// counts use and measures time to first call. Dates are set in the store to known values.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects, type TestApp } from '../helpers/test-app.js'

const DAY = 86_400_000

async function managed(app: TestApp, label: string, scopes: string[], extra: Record<string, unknown> = {}) {
  const { credential, token } = await app.services.credentials.create({ label, scopes, ...extra })
  return { id: credential.id, token }
}

async function setDates(app: TestApp, id: string, dates: { created?: number; firstUsed?: number | null; lastUsed?: number | null; rotated?: number }) {
  const set: Record<string, number | null> = {}
  if (dates.created !== undefined) set.created_at = dates.created
  if (dates.firstUsed !== undefined) set.first_used_at = dates.firstUsed
  if (dates.lastUsed !== undefined) set.last_used_at = dates.lastUsed
  if (dates.rotated !== undefined) set.rotated_at = dates.rotated
  await app.database.db.updateTable('credentials').set(set).where('id', '=', id).execute()
}

interface Row { credentialId: string; risk: string; findings: string[]; recommendedAction: string; neverUsed: boolean; stale: boolean; rotationDue: boolean | null; paused: boolean; revoked: boolean; expired: boolean; expiresInDays: number | null; daysSinceLastUse: number | null }

for (const dialect of await testDialects()) {
  test(`${dialect}: lifecycle finds expiry, disuse, rotation, pause and revocation, with risk and action`, async () => {
    const legacy = 'legacy-token-value-0123456789'
    const app = await buildTestApp({ dialect, env: { PLUGIN_GATEHOUSE_API_TOKEN: legacy } })
    try {
      const now = Date.now()
      const reviewer = await managed(app, 'ops', ['lifecycle:read'])
      const fresh = await managed(app, 'fresh', ['products:read'])
      await setDates(app, fresh.id, { created: now - 2 * DAY, firstUsed: now - DAY, lastUsed: now - DAY })
      const never = await managed(app, 'never', ['products:read'])
      await setDates(app, never.id, { created: now - 10 * DAY })
      const stale = await managed(app, 'stale', ['orders:read', 'orders:read_sensitive'])
      await setDates(app, stale.id, { created: now - 60 * DAY, firstUsed: now - 59 * DAY, lastUsed: now - 40 * DAY })
      const old = await managed(app, 'old', ['products:read'])
      await setDates(app, old.id, { created: now - 200 * DAY, firstUsed: now - 199 * DAY, lastUsed: now - DAY })
      const rotated = await managed(app, 'rotated', ['products:read'])
      await setDates(app, rotated.id, { created: now - 100 * DAY, rotated: now - 5 * DAY, firstUsed: now - 99 * DAY, lastUsed: now - DAY })
      const expiring = await managed(app, 'expiring', ['products:read'], { expiresAt: new Date(now + 3 * DAY).toISOString() })
      await setDates(app, expiring.id, { firstUsed: now - DAY, lastUsed: now - DAY })
      const paused = await managed(app, 'paused', ['products:read'])
      await app.services.credentials.setStatus(paused.id, 'paused')
      const revoked = await managed(app, 'revoked', ['products:read'])
      await app.services.credentials.setStatus(revoked.id, 'revoked')

      const res = await app.get('/gatehouse/v1/lifecycle', reviewer.token)
      assert.equal(res.statusCode, 200, res.body)
      const data = res.json().data
      const row = (id: string) => data.credentials.find((c: Row) => c.credentialId === id) as Row
      assert.equal(data.credentials.length, 10)

      assert.deepEqual([row(fresh.id).risk, row(fresh.id).findings], ['low', []])
      assert.equal(row(fresh.id).recommendedAction, 'Nothing to do.')
      assert.deepEqual([row(never.id).risk, row(never.id).findings, row(never.id).neverUsed], ['medium', ['never_used'], true])
      // Unused for 40 days while holding a sensitive scope: critical.
      assert.deepEqual([row(stale.id).risk, row(stale.id).findings, row(stale.id).stale], ['critical', ['stale', 'privileged'], true])
      assert.equal(row(stale.id).daysSinceLastUse, 40)
      assert.match(row(stale.id).recommendedAction, /revoke/i)
      assert.deepEqual([row(old.id).risk, row(old.id).findings, row(old.id).rotationDue], ['high', ['rotation_due'], true])
      assert.deepEqual([row(rotated.id).findings, row(rotated.id).rotationDue], [[], false], 'a rotation resets the age')
      assert.deepEqual([row(expiring.id).risk, row(expiring.id).findings], ['medium', ['expiring_soon']])
      assert.ok(row(expiring.id).expiresInDays === 2 || row(expiring.id).expiresInDays === 3)
      assert.deepEqual([row(paused.id).paused, row(paused.id).findings, row(paused.id).risk], [true, ['paused'], 'low'])
      assert.deepEqual([row(revoked.id).revoked, row(revoked.id).findings], [true, ['revoked']])
      assert.deepEqual(row('default').findings, ['legacy_token'])
      assert.equal(row('default').rotationDue, null, 'no creation date: unknown')
      // Riskiest first, and a summary by risk.
      assert.equal(data.credentials[0].credentialId, stale.id)
      assert.deepEqual(data.summary, { low: 5, medium: 3, high: 1, critical: 1, total: 10 })

      // Never a token or its hint.
      for (const t of [legacy, reviewer.token, fresh.token, stale.token]) assert.ok(!res.body.includes(t))
      assert.ok(!res.body.includes('tokenHint'))
      assert.ok(!res.body.includes(legacy.slice(-4)), 'not even the last characters of a token')

      const denied = await app.get('/gatehouse/v1/lifecycle', fresh.token)
      assert.equal(denied.statusCode, 403)
      assert.equal(denied.json().error.message, 'Missing required scope: lifecycle:read')
    } finally {
      await app.close()
    }
  })
}

test('adoption counts use and measures creation to first call (median and p90)', async () => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_API_CREDENTIALS: JSON.stringify([{ id: 'etl', label: 'ETL', token: 'configured-token-0123456789', scopes: ['products:read'] }]) } })
  try {
    const now = Date.now()
    // Delays from creation to first call: 10, 20, 30, 40 and 100 seconds.
    const spec: [number, number | null][] = [[10, 3 * DAY], [20, 20 * DAY], [30, 60 * DAY], [40, 6 * DAY], [100, 45 * DAY]]
    for (const [delay, lastUsedAgo] of spec) {
      const c = await managed(app, `c${delay}`, ['products:read'])
      const created = now - 90 * DAY
      await setDates(app, c.id, { created, firstUsed: created + delay * 1000, lastUsed: now - (lastUsedAgo ?? 0) })
    }
    const unused = await managed(app, 'unused', ['products:read'])
    const gone = await managed(app, 'gone', ['products:read'])
    await app.services.credentials.setStatus(gone.id, 'revoked')
    assert.ok(unused)

    const caller = await managed(app, 'ops', ['adoption:read'])
    const res = await app.get('/gatehouse/v1/adoption/metrics', caller.token)
    assert.equal(res.statusCode, 200, res.body)
    const d = res.json().data
    // 5 timed + unused + the caller (managed) + the configured one; the revoked one is out.
    assert.equal(d.credentialsConfigured, 8)
    assert.deepEqual(d.bySource, { managed: 7, configured: 1, legacy: 0 })
    // Used: the five, and the caller (its first call is this request).
    assert.equal(d.usedAtLeastOnce, 6)
    assert.equal(d.neverUsed, 2)
    assert.equal(d.activeLast7Days, 3, 'used 3 and 6 days ago, and the caller now')
    assert.equal(d.activeLast30Days, 4)
    // Samples: the caller's (under a second) and 10, 20, 30, 40, 100.
    assert.equal(d.timeToFirstCall.sampleSize, 6)
    assert.equal(d.timeToFirstCall.medianSeconds, 20)
    assert.equal(d.timeToFirstCall.p90Seconds, 100)
  } finally {
    await app.close()
  }
})

// DESIGN §10 times the first *successful* call: a credential whose calls were all refused (a
// missing scope, a bad parameter) has not been used; its first call that passes is.
test('a call refused for a missing scope or a bad parameter is no use; the first call that passes is', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    const probe = await managed(app, 'probe', ['health:read', 'tags:read'])
    const reader = await managed(app, 'reader', ['adoption:read', 'lifecycle:read'])
    const record = async () => {
      await app.services.credentials.flushUsage()
      return app.services.credentials.get(probe.id)
    }
    assert.equal((await app.get('/gatehouse/v1/products', probe.token)).statusCode, 403)
    assert.equal((await app.get('/gatehouse/v1/tags?limit=0', probe.token)).statusCode, 400)
    assert.deepEqual([(await record()).firstUsedAt, (await record()).lastUsedAt], [null, null])
    const metrics = (await app.get('/gatehouse/v1/adoption/metrics', reader.token)).json().data
    assert.equal(metrics.neverUsed, 1, 'the probe; the reader is using it now')
    const lifecycle = (await app.get('/gatehouse/v1/lifecycle', reader.token)).json().data
    assert.equal(lifecycle.credentials.find((c: { credentialId: string }) => c.credentialId === probe.id).neverUsed, true)

    assert.equal((await app.get('/gatehouse/v1/tags', probe.token)).statusCode, 200)
    const used = await record()
    assert.ok(used.firstUsedAt !== null && used.lastUsedAt !== null)
    assert.equal((await app.get('/gatehouse/v1/adoption/metrics', reader.token)).json().data.neverUsed, 0)
  } finally {
    await app.close()
  }
})
