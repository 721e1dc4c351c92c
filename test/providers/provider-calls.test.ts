// What Gatehouse does around a provider's calls, with a provider the test steers: its own
// deadline for a call that never answers, recovery of a provider without available(), bugs
// and items outside the schema as 500s that disclose nothing, short pages that keep paging
// while filter drops items, and resources that apply filter and fields themselves.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { buildTestApp } from '../helpers/test-app.js'
import { listAll } from './helpers/provider-app.js'
import { control } from './fixtures/flaky-provider.js'

const THINGS = `${BASE_PATH}/plugins/flaky/things`
const OWN = `${BASE_PATH}/plugins/flaky/own`

async function flakyApp(t: TestContext) {
  control.mode = 'ok'
  const app = await buildTestApp({ dialect: 'sqlite', providers: { checkIntervalMs: 50, callTimeoutMs: 200 }, env: { PLUGIN_GATEHOUSE_PROVIDERS: './test/providers/fixtures/flaky-provider.ts' } })
  t.after(() => app.close())
  const token = await app.issueToken(['plugins:flaky:things:read', 'plugins:flaky:own:read', 'readiness:read'])
  const providersCheck = async () => (await app.get(`${BASE_PATH}/readiness`, token)).json().data.checks.find((c: { name: string }) => c.name === 'providers')
  return { app, token, providersCheck }
}

test('a call that never answers is cut at the deadline: 503, and the next good call recovers', async (t) => {
  const { app, token, providersCheck } = await flakyApp(t)
  control.mode = 'hang'
  const started = Date.now()
  const hung = await app.get(THINGS, token)
  assert.equal(hung.statusCode, 503)
  assert.equal(hung.json().error.code, 'PROVIDER_UNAVAILABLE')
  // Without the deadline this request would never be answered.
  assert.ok(Date.now() - started < 10_000, `cut at the deadline, took ${Date.now() - started} ms`)
  assert.equal((await providersCheck()).message, 'provider flaky is unavailable: no answer within 200 ms')

  control.mode = 'unavailable'
  assert.equal((await app.get(`${THINGS}/t001`, token)).statusCode, 503)
  assert.equal((await providersCheck()).message, 'provider flaky is unavailable: backend closed for lunch')

  // Without available(), requests still reach the provider: the first good one recovers it.
  control.mode = 'ok'
  assert.equal((await app.get(`${THINGS}/t001`, token)).statusCode, 200)
  assert.deepEqual(await providersCheck(), { name: 'providers', status: 'ok', message: '1 provider available', details: (await providersCheck()).details })
})

test('a provider bug or an item outside the schema is a 500 that discloses nothing; the provider stays available', async (t) => {
  const { app, token, providersCheck } = await flakyApp(t)
  for (const mode of ['bug', 'bad-item'] as const) {
    control.mode = mode
    const res = await app.get(THINGS, token)
    assert.equal(res.statusCode, 500, mode)
    assert.deepEqual(res.json().error, { code: 'INTERNAL_ERROR', message: 'An unexpected error occurred; quote the requestId when reporting it' })
    assert.doesNotMatch(res.body, /secret-token|many|schema/)
  }
  assert.equal((await providersCheck()).status, 'ok')
})

test('short pages keep paging while filter drops items: every match once, and position objects round-trip', async (t) => {
  const { app, token } = await flakyApp(t)
  // 100 things in provider pages of 2; a request makes at most 10 calls, so early pages are short.
  const rare = await listAll(app, token, `${THINGS}?limit=3&filter=${encodeURIComponent('n:97')}`)
  assert.deepEqual(rare.items.map((x) => x.id), ['t097'])
  assert.ok(rare.pages.length > 1 && rare.pages[0] === 0, `pages ${rare.pages}`)

  const round = await listAll(app, token, `${THINGS}?limit=4&filter=${encodeURIComponent('tags:round')}`)
  assert.deepEqual(round.items.map((x) => x.id), ['t000', 't010', 't020', 't030', 't040', 't050', 't060', 't070', 't080', 't090'])

  const all = await listAll(app, token, `${THINGS}?limit=7`)
  assert.deepEqual(all.items.map((x) => x.n), Array.from({ length: 100 }, (_, i) => i))
})

test('a resource that applies filter and fields itself gets them parsed and its items are sent as given', async (t) => {
  const { app, token } = await flakyApp(t)
  control.received = []
  const res = await app.get(`${OWN}?limit=3&fields=id&filter=${encodeURIComponent('tags:~ROU,id:t0*')}`, token)
  assert.equal(res.statusCode, 200, res.body)
  assert.deepEqual(res.json().data, [{ id: 't000' }, { id: 't010' }, { id: 't020' }])
  const q = control.received[0]
  assert.deepEqual(q.fields, ['id'])
  assert.deepEqual(q.filter?.map((f) => [f.path, f.op, f.value, f.arrayAt]), [[['tags'], 'like', '%ROU%', 1], [['id'], 'like', 't0%', undefined]])
  assert.equal(q.limit, 3)
  // Still validated by Gatehouse against the item schema.
  const bad = await app.get(`${OWN}?fields=nope`, token)
  assert.equal(bad.statusCode, 400)
})
