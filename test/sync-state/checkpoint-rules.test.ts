// POST /sync-state/checkpoint: the spec's rules 1–5 and validation of every field, on both
// storage engines.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects, type TestApp } from '../helpers/test-app.js'

const URL = '/gatehouse/v1/sync-state/checkpoint'

async function credential(app: TestApp, scopes: string[]): Promise<{ id: string; token: string }> {
  const { credential: c, token } = await app.services.credentials.create({ label: 'sync worker', scopes })
  return { id: c.id, token }
}

async function storedKeys(app: TestApp): Promise<string[]> {
  const rows = await app.services.database.db.selectFrom('sync_checkpoints').select(['integration_key', 'resource_type']).orderBy('integration_key').execute()
  return rows.map((r) => `${r.integration_key}/${r.resource_type}`).sort()
}

for (const dialect of await testDialects()) {
  test(`${dialect}: a dedicated credential's checkpoint is bound to its credential id`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      const worker = await credential(app, ['syncstate:write', 'syncstate:read'])
      const before = Date.now()
      // Rule 1: omitted integrationKey defaults to the credential id; checkpointAt defaults to now.
      const res = await app.post(URL, { resourceType: 'products' }, worker.token)
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json()
      assert.equal(body.ok, true)
      assert.equal(body.data.integrationKey, worker.id)
      assert.equal(body.data.resourceType, 'products')
      assert.equal(body.data.cursor, null)
      assert.equal(body.data.metadata, null)
      const at = Date.parse(body.data.checkpointAt)
      assert.ok(at >= before - 1 && at <= Date.now(), `checkpointAt ${body.data.checkpointAt} is now`)
      assert.equal(typeof body.requestId, 'string')

      // Naming itself is the same as omitting the key.
      const own = await app.post(URL, { integrationKey: worker.id, resourceType: 'orders', checkpointAt: '2026-01-02T03:04:05.000Z', metadata: { batch: 7, note: 'nightly' } }, worker.token)
      assert.equal(own.statusCode, 200, own.body)
      assert.deepEqual(own.json().data, {
        integrationKey: worker.id, resourceType: 'orders', cursor: null, updatedSince: null,
        checkpointAt: '2026-01-02T03:04:05.000Z', metadata: { batch: 7, note: 'nightly' },
      })

      // Rule 2: another key is refused and nothing is written.
      const other = await credential(app, ['syncstate:write'])
      for (const key of [other.id, 'someone-else']) {
        const denied = await app.post(URL, { integrationKey: key, resourceType: 'products' }, worker.token)
        assert.equal(denied.statusCode, 403, key)
        assert.equal(denied.json().error.code, 'FORBIDDEN')
        assert.match(denied.json().error.message, /integrationKey/)
        assert.equal(denied.json().ok, undefined)
      }
      assert.deepEqual(await storedKeys(app), [`${worker.id}/orders`, `${worker.id}/products`].sort())

      // A later write replaces the earlier one (last write wins).
      const again = await app.post(URL, { resourceType: 'orders' }, worker.token)
      assert.equal(again.json().data.metadata, null)
      assert.equal((await storedKeys(app)).length, 2)
    } finally {
      await app.close()
    }
  })

  test(`${dialect}: without syncstate:write the checkpoint is 403 FORBIDDEN naming the scope`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      const reader = await credential(app, ['syncstate:read', 'changes:read'])
      const res = await app.post(URL, { resourceType: 'products' }, reader.token)
      assert.equal(res.statusCode, 403)
      assert.equal(res.json().error.code, 'FORBIDDEN')
      assert.equal(res.json().error.message, 'Missing required scope: syncstate:write')
      assert.deepEqual(await storedKeys(app), [])
    } finally {
      await app.close()
    }
  })
}

test('legacy token writes any integrationKey only while it is the sole runtime credential', async () => {
  for (const dialect of await testDialects()) {
    const env = { PLUGIN_GATEHOUSE_API_TOKEN: 'legacy-token-0123456789abcdef', PLUGIN_GATEHOUSE_TOKEN_SCOPES: 'syncstate:read,syncstate:write' }
    const legacy = env.PLUGIN_GATEHOUSE_API_TOKEN
    const app = await buildTestApp({ dialect, env })
    try {
      // Sole credential: arbitrary keys are allowed (rule 3), omitted key is its own id.
      const a = await app.post(URL, { integrationKey: 'erp-sync', resourceType: 'products' }, legacy)
      assert.equal(a.statusCode, 200, a.body)
      assert.equal(a.json().data.integrationKey, 'erp-sync')
      const d = await app.post(URL, { resourceType: 'products' }, legacy)
      assert.equal(d.json().data.integrationKey, 'default')
      const lag = await app.get('/gatehouse/v1/sync-state/lag?integrationKey=erp-sync', legacy)
      assert.equal(lag.statusCode, 200)
      assert.deepEqual(lag.json().data.checkpoints.map((c: { resourceType: string }) => c.resourceType), ['products'])

      // A managed credential appears: the legacy token is bound to `default` like any other.
      const managed = await credential(app, ['syncstate:write'])
      const denied = await app.post(URL, { integrationKey: 'erp-sync', resourceType: 'orders' }, legacy)
      assert.equal(denied.statusCode, 403)
      assert.equal(denied.json().error.code, 'FORBIDDEN')
      assert.equal((await app.get('/gatehouse/v1/sync-state/lag?integrationKey=erp-sync', legacy)).statusCode, 403)
      assert.equal((await app.post(URL, { integrationKey: 'default', resourceType: 'orders' }, legacy)).statusCode, 200)
      // Managed credentials never get the exception.
      assert.equal((await app.post(URL, { integrationKey: 'erp-sync', resourceType: 'orders' }, managed.token)).statusCode, 403)

      // Revoking the managed one makes the legacy token sole again.
      await app.services.credentials.setStatus(managed.id, 'revoked')
      assert.equal((await app.post(URL, { integrationKey: 'erp-sync', resourceType: 'orders' }, legacy)).statusCode, 200)
    } finally {
      await app.close()
    }
  }
})

test('legacy token beside configured credentials is bound to its own id', async () => {
  const app = await buildTestApp({
    dialect: 'sqlite',
    env: {
      PLUGIN_GATEHOUSE_API_TOKEN: 'legacy-token-0123456789abcdef',
      PLUGIN_GATEHOUSE_TOKEN_SCOPES: 'syncstate:write',
      PLUGIN_GATEHOUSE_API_CREDENTIALS: JSON.stringify([{ id: 'etl', label: 'ETL', token: 'configured-token-0123456789', scopes: ['syncstate:write'] }]),
    },
  })
  try {
    const denied = await app.post(URL, { integrationKey: 'erp-sync', resourceType: 'products' }, 'legacy-token-0123456789abcdef')
    assert.equal(denied.statusCode, 403)
    assert.equal(denied.json().error.code, 'FORBIDDEN')
    const etl = await app.post(URL, { resourceType: 'products' }, 'configured-token-0123456789')
    assert.equal(etl.json().data.integrationKey, 'etl')
    assert.equal((await app.post(URL, { integrationKey: 'default', resourceType: 'products' }, 'configured-token-0123456789')).statusCode, 403)
  } finally {
    await app.close()
  }
})

test('every checkpoint field is validated: 400 INVALID_REQUEST naming it', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    const worker = await credential(app, ['syncstate:write', 'changes:read', 'products:read'])
    await app.services.store.create('products', { type: 'shirt', title: 'A', slug: 'a' })
    const changes = await app.get('/gatehouse/v1/changes?types=products', worker.token)
    const changesCursor = changes.json().pagination.nextCursor as string
    const cases: [unknown, string][] = [
      [{}, 'resourceType'],
      [{ resourceType: 'widgets' }, 'resourceType'],
      [{ resourceType: 'products', checkpointAt: 'yesterday' }, 'checkpointAt'],
      [{ resourceType: 'products', checkpointAt: '2026-01-01' }, 'checkpointAt'],
      [{ resourceType: 'products', checkpointAt: '2026-01-01T00:00:00' }, 'checkpointAt'],
      [{ resourceType: 'products', checkpointAt: '2026-02-30T00:00:00Z' }, 'checkpointAt'],
      [{ resourceType: 'products', checkpointAt: '2999-01-01T00:00:00Z' }, 'checkpointAt'],
      [{ resourceType: 'products', updatedSince: 'not a date' }, 'updatedSince'],
      [{ resourceType: 'products', metadata: [1, 2] }, 'metadata'],
      [{ resourceType: 'products', metadata: 'text' }, 'metadata'],
      [{ resourceType: 'products', metadata: null }, 'metadata'],
      [{ resourceType: 'products', metadata: { blob: 'x'.repeat(20_000) } }, 'metadata'],
      [{ resourceType: 'products', cursor: '' }, 'cursor'],
      [{ resourceType: 'products', cursor: 'x'.repeat(2049) }, 'cursor'],
      [{ resourceType: 'products', integrationKey: '' }, 'integrationKey'],
      [{ resourceType: 'products', integrationKey: 'has spaces' }, 'integrationKey'],
      [{ resourceType: 'products', extra: 1 }, 'extra'],
    ]
    for (const [body, param] of cases) {
      const res = await app.post(URL, body, worker.token)
      assert.equal(res.statusCode, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.body}`)
      assert.equal(res.json().error.code, 'INVALID_REQUEST')
      const params = res.json().error.details.map((d: { param: string }) => d.param)
      assert.ok(params.includes(param), `${JSON.stringify(body).slice(0, 80)} names ${param}: ${params.join(',')}`)
    }
    const rows = await app.services.database.db.selectFrom('sync_checkpoints').selectAll().execute()
    assert.equal(rows.length, 0, 'nothing written by invalid requests')

    const ok = await app.post(URL, { resourceType: 'products', cursor: changesCursor, updatedSince: '2026-01-01T00:00:00+02:00' }, worker.token)
    assert.equal(ok.statusCode, 200, ok.body)
    assert.equal(ok.json().data.cursor, changesCursor)
    assert.equal(ok.json().data.updatedSince, '2025-12-31T22:00:00.000Z')
  } finally {
    await app.close()
  }
})
