// POST /webhooks/dlq/replay takes `id` as an integer (the spec's type): a string that looks
// like one ("1705") is a 400 naming id, as is any other mistyped field, and nothing is
// replayed. This tests the behaviour; the mechanism (bodies validated as sent, without
// coercion) is the body validation's.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'

const REPLAY = '/gatehouse/v1/webhooks/dlq/replay'

test('replay refuses an id given as a string, and other mistyped fields, naming each', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['webhooks:dlq:replay'])
  const refused = async (body: unknown) => {
    const res = await app.post(REPLAY, body, token)
    assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`)
    assert.equal(res.json().error.code, 'INVALID_REQUEST')
    return res.json().error.details.map((d: { param: string }) => d.param).sort()
  }
  assert.deepEqual(await refused({ id: '1705' }), ['id'])
  assert.deepEqual(await refused({ id: 1705.5 }), ['id'])
  assert.deepEqual(await refused({ mode: 'all', limit: '10' }), ['limit'])
  assert.deepEqual(await refused({ id: true }), ['id'])
  // The integer is accepted (and is unknown here).
  assert.equal((await app.post(REPLAY, { id: 1705 }, token)).statusCode, 404)
})
