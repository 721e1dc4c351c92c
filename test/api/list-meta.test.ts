// Every list of the machine API carries `meta: { mode }` beside its pagination (DESIGN §4),
// the control plane's and the job runtime's lists too: the envelope gives `full` to a list
// that reads no other way.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'
import { scopeCatalog } from '../helpers/scopes.js'

test('every list answers meta.mode beside its pagination', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true', PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true', PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true' } })
  t.after(() => app.close())
  const token = await app.issueToken(scopeCatalog.map((s) => s.scope))
  const lists = app.routes.filter((r) => r.method === 'GET' && r.list)
  const answered: string[] = []
  for (const route of lists) {
    const res = await app.get(`/gatehouse/v1${route.path}`, token)
    if (res.statusCode !== 200) continue
    const body = res.json()
    assert.ok(body.pagination, `${route.path} has pagination`)
    assert.ok(['full', 'incremental'].includes(body.meta?.mode), `${route.path}: meta ${JSON.stringify(body.meta)}`)
    answered.push(route.path)
  }
  for (const path of ['/workflows', '/control/approvals', '/control/executions', '/control/audit', '/entries', '/changes', '/incidents']) {
    assert.ok(answered.includes(path), `${path} was asked: ${answered.join(' ')}`)
  }
})
