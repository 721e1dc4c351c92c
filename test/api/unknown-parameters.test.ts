// An unknown query parameter is a 400 naming it on every route, not only on those that take
// parameters: `/auth/whoami?bogus=1`, `/capabilities?x=1` and the admin API's record detail and
// delete routes answered as if it were not there (a typo passed unnoticed; a DELETE ran).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'
import { adminClient, adminTestApp, dataOf } from '../admin/helpers/admin-client.js'

const BOGUS = [{ param: 'bogus', problem: 'unknown parameter' }]

test('every machine-API GET route refuses a parameter it does not take', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const routes = app.registeredRoutes.filter((r) => r.scope !== undefined && r.method === 'GET' && !r.url.includes(':'))
  const token = await app.issueToken([...new Set(routes.map((r) => r.scope as string))])
  assert.ok(routes.some((r) => r.url.endsWith('/auth/whoami')) && routes.some((r) => r.url.endsWith('/capabilities')), 'routes without parameters are among them')
  for (const { url } of routes) {
    const res = await app.get(`${url}?bogus=1`, token)
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`)
    // Beside any required parameter left out.
    assert.deepEqual(res.json().error.details.filter((d: { param: string }) => d.param === 'bogus'), BOGUS, url)
  }
})

test("the admin API's record routes refuse a parameter they do not take; the DELETE does not run", async (t) => {
  const app = await adminTestApp('sqlite')
  t.after(() => app.close())
  const admin = adminClient(app)
  const tag = dataOf(await admin.post('/tags', { group: 'g', title: 'T', slug: 't' }), 201)
  for (const res of [await admin.get(`/tags/${tag.id}?bogus=1`), await admin.del(`/tags/${tag.id}?bogus=1`)]) {
    assert.equal(res.statusCode, 400, res.body)
    assert.deepEqual(res.json().error.details, BOGUS)
  }
  assert.equal(dataOf(await admin.get(`/tags/${tag.id}`)).title, 'T', 'still there')
  assert.equal((await admin.del(`/tags/${tag.id}`)).statusCode, 204)
})
