// A date that does not exist (the 31st of February) is refused wherever a date comes in,
// naming the field: JavaScript's Date.parse reads it as a day in March, so it was stored as
// given in documents, moved to March in a credential's expiry and a redirects file, and
// accepted by the CLI's --updated-since where the API refused it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isRealMoment } from '../../src/kernel/calendar.js'
import { parseRedirects, RedirectsFileError } from '../../src/providers/redirects/redirect-rules.js'
import { adminClient, adminTestApp, dataOf } from '../admin/helpers/admin-client.js'
import { runCli } from '../cli/helpers/cli.js'
import { buildTestApp } from '../helpers/test-app.js'

test('real days and times: month lengths, leap years, hours, minutes and seconds', () => {
  for (const ok of ['2024-02-29', '2000-02-29T00:00:00Z', '2030-04-30T23:59:59Z', '2030-12-31T10:00', '2030-01-31 08:30:00+02:00']) assert.equal(isRealMoment(ok), true, ok)
  for (const bad of ['2023-02-29', '1900-02-29', '2030-02-31T00:00:00Z', '2031-04-31', '2030-13-01', '2030-00-10', '2030-01-00', '2030-01-01T24:00:00Z', '2030-01-01T10:60:00Z', '2030-01-01T23:59:60Z', 'yesterday']) {
    assert.equal(isRealMoment(bad), false, bad)
  }
})

test('a redirects file with an updatedAt of a day that does not exist names its line', async () => {
  const text = 'id,from,to,statusCode,enabled,updatedAt\nr1,/a,/b,301,true,2025-02-30\nr2,/c,/d,301,true,2025-02-28T10:00:00Z\n'
  await assert.rejects(parseRedirects(text, 'csv', new Date()), (err: unknown) => err instanceof RedirectsFileError
    && assert.deepEqual(err.problems, ['line 2: updatedAt "2025-02-30" must be an ISO 8601 date or date-time with a time zone']) === undefined)
})

test('the admin API refuses a document date or a credential expiry on a day that does not exist', async (t) => {
  const app = await adminTestApp('sqlite')
  t.after(() => app.close())
  const admin = adminClient(app)
  const product = dataOf(await admin.post('/products', { type: 'mug', title: 'Dated', slug: 'dated-mug' }), 201)
  const patched = await admin.patch(`/products/${product.id}`, { postDate: '2030-02-31T00:00:00Z' })
  assert.equal(patched.statusCode, 400, patched.body)
  assert.deepEqual(patched.json().error.details.map((d: { param: string }) => d.param), ['postDate'])
  assert.equal(dataOf(await admin.patch(`/products/${product.id}`, { postDate: '2030-02-28T00:00:00Z' })).postDate, '2030-02-28T00:00:00Z')

  const credential = await admin.post('/credentials', { label: 'x', scopes: ['auth:read'], expiresAt: '2030-02-31T00:00:00Z' })
  assert.equal(credential.statusCode, 400, credential.body)
  assert.deepEqual(credential.json().error.details, [{ param: 'expiresAt', problem: 'must be a date-time (RFC 3339 with a time zone, of a day that exists) or null' }])
})

test('the CLI refuses --updated-since on a day that does not exist, naming the flag', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const res = await runCli(['records', 'list', 'products', '--updated-since', '2030-02-31T00:00:00Z'], { env: { PLUGIN_GATEHOUSE_DATABASE_URL: app.database.url } })
  assert.notEqual(res.code, 0)
  assert.match(res.stderr, /--updated-since/)
})
