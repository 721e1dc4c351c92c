// A number in a query string or path is written in decimal, or it is a 400 naming the
// parameter. Ajv's coercion reads text as JavaScript does: `limit=Infinity` reached the SQL
// text (a 500), and `0x10`, `1e2` and ` 10` were taken as 16, 100 and 10. The other bad
// parameters of the request are still named beside it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { adminClient, adminTestApp } from '../admin/helpers/admin-client.js'

const LOOSE = ['Infinity', '-Infinity', '1e400', '0x10', '0b11', '1e2', ' 10', '10 ', '+10', '1.0']

for (const dialect of await testDialects()) {
  test(`${dialect}: numbers in the machine API's query strings must be plain decimals`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    await seedSmallCatalog(app.services.store)
    const token = await app.issueToken(['products:read', 'variants:read', 'changes:read', 'tags:read'])
    const details = async (url: string) => {
      const res = await app.get(url, token)
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`)
      return res.json().error.details as { param: string; problem: string }[]
    }
    for (const value of LOOSE) {
      const v = encodeURIComponent(value)
      assert.deepEqual(await details(`/gatehouse/v1/products?limit=${v}`), [{ param: 'limit', problem: 'must be integer' }], `limit=${value}`)
      assert.deepEqual(await details(`/gatehouse/v1/changes?after=${v}`), [{ param: 'after', problem: 'must be integer' }], `after=${value}`)
      assert.deepEqual(await details(`/gatehouse/v1/variants/show?id=${v}`), [{ param: 'id', problem: 'must be integer' }], `id=${value}`)
    }
    // Digits past what a JavaScript number holds exactly are not rounded to another id.
    assert.deepEqual(await details('/gatehouse/v1/variants/show?id=99999999999999999999'),
      [{ param: 'id', problem: 'must be between -9007199254740991 and 9007199254740991' }])
    // Every bad parameter is named at once.
    const both = await details('/gatehouse/v1/tags?limit=0x10&sort=sideways')
    assert.deepEqual(both.map((d) => d.param).sort(), ['limit', 'sort'])
    // Plain decimals work as before.
    assert.equal((await app.get('/gatehouse/v1/products?limit=1', token)).json().data.length, 1)
    assert.equal((await app.get('/gatehouse/v1/changes?after=0&limit=2', token)).json().data.length, 2)
    assert.equal((await app.get('/gatehouse/v1/products?limit=0', token)).json().error.details[0].problem, 'must be >= 1')
  })

  test(`${dialect}: numbers in the admin API's query strings must be plain decimals`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const admin = adminClient(app)
    for (const value of ['Infinity', '1e400', '0x10']) {
      const res = await admin.get(`/products?limit=${encodeURIComponent(value)}`)
      assert.equal(res.statusCode, 400, res.body)
      assert.deepEqual(res.json().error.details, [{ param: 'limit', problem: 'must be integer' }])
    }
  })

  test(`${dialect}: a number in a JSON body beyond what JavaScript holds exactly is a 400 naming its path (machine API and MCP)`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    const token = await app.issueToken(['products:read', 'syncstate:write'])
    const post = (url: string, text: string, headers: Record<string, string> = {}) => app.app.inject({ method: 'POST', url, payload: text, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers } })
    const checkpoint = await post('/gatehouse/v1/sync-state/checkpoint', '{"resourceType":"products","cursor":"x","meta":{"n":[1,1e308]}}')
    assert.equal(checkpoint.statusCode, 400, checkpoint.body)
    assert.equal(checkpoint.json().error.details[0].param, 'meta.n.1')
    // MCP: get_products with an id that would have been rounded to another record's.
    const mcp = await post('/gatehouse/mcp', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_products","arguments":{"id":9007199254740993}}}', { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' })
    assert.equal(mcp.statusCode, 400, mcp.body)
    // As a JSON-RPC error there (test/mcp/unreadable-bodies.test.ts).
    assert.match(mcp.json().error.message, /params\.arguments\.id must be between/)
  })
}
