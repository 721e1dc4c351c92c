// The built-in redirects provider through the whole machine-API surface: envelope, request
// ids, paging that returns every item once, query-bound cursors, fields, filter, its own list
// parameters, scope, 404, 405, rate limits and metrics. Providers keep no rows in the
// database, so one engine is enough here.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { listAll, REDIRECTS, REDIRECTS_SCOPE, redirectsApp, redirectsFile, type RedirectRow } from './helpers/provider-app.js'

const CODES = [301, 302, 307, 308] as const
const ROWS: RedirectRow[] = Array.from({ length: 23 }, (_, i) => ({
  id: `r${String(i + 1).padStart(2, '0')}`,
  from: i === 5 ? '/sale,2024' : `/old/${i + 1}`,
  to: i % 3 === 0 ? `https://Shop.Example.com/p/${i + 1}` : `/new/${i + 1}`,
  statusCode: CODES[i % 4],
  enabled: i % 5 !== 0,
  updatedAt: `2024-01-${String(i + 1).padStart(2, '0')}T00:00:00.000Z`,
}))
const ids = (items: readonly Record<string, unknown>[]) => items.map((x) => x.id)

test('list and detail: the envelope, request ids, and items as the file has them', async (t) => {
  const app = await redirectsApp(t, redirectsFile(t, ROWS))
  const token = await app.issueToken([REDIRECTS_SCOPE])

  const res = await app.get(`${REDIRECTS}?limit=2`, token, { 'x-request-id': 'client-1' })
  assert.equal(res.statusCode, 200)
  assert.equal(res.headers['x-request-id'], 'client-1')
  const body = res.json()
  assert.deepEqual(Object.keys(body), ['ok', 'data', 'pagination', 'meta', 'requestId'])
  assert.equal(body.ok, true)
  assert.equal(body.requestId, 'client-1')
  assert.deepEqual(body.meta, { mode: 'full' })
  assert.equal(body.pagination.hasMore, true)
  assert.equal(typeof body.pagination.nextCursor, 'string')
  assert.deepEqual(body.data, [
    { id: 'r01', from: '/old/1', to: 'https://Shop.Example.com/p/1', statusCode: 301, enabled: false, updatedAt: '2024-01-01T00:00:00.000Z' },
    { id: 'r02', from: '/old/2', to: '/new/2', statusCode: 302, enabled: true, updatedAt: '2024-01-02T00:00:00.000Z' },
  ])

  const one = await app.get(`${REDIRECTS}/r06`, token)
  assert.equal(one.statusCode, 200)
  assert.deepEqual(Object.keys(one.json()), ['ok', 'data', 'requestId'])
  assert.deepEqual(one.json().data, { id: 'r06', from: '/sale,2024', to: '/new/6', statusCode: 302, enabled: false, updatedAt: '2024-01-06T00:00:00.000Z' })
  assert.equal(one.json().requestId, one.headers['x-request-id'])

  const missing = await app.get(`${REDIRECTS}/r99`, token)
  assert.equal(missing.statusCode, 404)
  assert.equal(missing.json().error.code, 'NOT_FOUND')
  assert.match(missing.json().error.message, /has id r99/)
})

test('paging returns every item exactly once, also when filter and parameters drop items', async (t) => {
  const app = await redirectsApp(t, redirectsFile(t, ROWS))
  const token = await app.issueToken([REDIRECTS_SCOPE])
  const all = ROWS.map((r) => r.id)

  const plain = await listAll(app, token, `${REDIRECTS}?limit=5`)
  assert.deepEqual(ids(plain.items), all)
  assert.deepEqual(plain.pages, [5, 5, 5, 5, 3])

  // Gatehouse applies filter after the provider: pages stay full and nothing repeats.
  const filtered = await listAll(app, token, `${REDIRECTS}?limit=2&filter=${encodeURIComponent('statusCode:302')}`)
  assert.deepEqual(ids(filtered.items), ROWS.filter((r) => r.statusCode === 302).map((r) => r.id))
  assert.ok(filtered.pages.slice(0, -1).every((n) => n === 2), `pages ${filtered.pages}`)

  const both = await listAll(app, token, `${REDIRECTS}?limit=3&enabled=yes&filter=${encodeURIComponent('to:~example.COM')}`)
  assert.deepEqual(ids(both.items), ROWS.filter((r) => r.enabled && r.to.includes('Example')).map((r) => r.id))

  const whole = await app.get(`${REDIRECTS}?limit=200`, token)
  assert.deepEqual(whole.json().pagination, { hasMore: false, nextCursor: null })
})

test('cursors are signed and bound to their query', async (t) => {
  const app = await redirectsApp(t, redirectsFile(t, ROWS))
  const token = await app.issueToken([REDIRECTS_SCOPE])
  const first = (await app.get(`${REDIRECTS}?limit=2&statusCode=301`, token)).json()
  const cursor = first.pagination.nextCursor as string

  const same = await app.get(`${REDIRECTS}?statusCode=301&limit=2&cursor=${cursor}`, token)
  assert.equal(same.statusCode, 200)
  assert.deepEqual(ids(same.json().data), ['r09', 'r13'])

  for (const query of ['statusCode=302', 'statusCode=301&q=old', `statusCode=301&filter=${encodeURIComponent('enabled:true')}`]) {
    const other = await app.get(`${REDIRECTS}?${query}&cursor=${cursor}`, token)
    assert.equal(other.statusCode, 400, query)
    assert.deepEqual(other.json().error.details, [{ param: 'cursor', problem: 'cursor belongs to a different query; repeat the parameters of the first page' }])
  }
  const [body, signature] = cursor.split('.')
  const edited = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), p: 'r20' })).toString('base64url')
  const forged = await app.get(`${REDIRECTS}?statusCode=301&cursor=${edited}.${signature}`, token)
  assert.equal(forged.statusCode, 400)
  assert.equal(forged.json().error.details[0].param, 'cursor')
})

test('fields keeps the requested properties; unknown ones are refused with the valid list', async (t) => {
  const app = await redirectsApp(t, redirectsFile(t, ROWS))
  const token = await app.issueToken([REDIRECTS_SCOPE])
  const list = await app.get(`${REDIRECTS}?limit=2&fields=id,to`, token)
  assert.deepEqual(list.json().data, [{ id: 'r01', to: 'https://Shop.Example.com/p/1' }, { id: 'r02', to: '/new/2' }])
  const one = await app.get(`${REDIRECTS}/r03?fields=statusCode`, token)
  assert.deepEqual(one.json().data, { statusCode: 307 })
  for (const url of [`${REDIRECTS}?fields=id,target`, `${REDIRECTS}/r03?fields=target`]) {
    const bad = await app.get(url, token)
    assert.equal(bad.statusCode, 400)
    assert.deepEqual(bad.json().error.details, [{ param: 'fields', problem: 'unknown field "target"; valid fields: id, from, to, statusCode, enabled, updatedAt' }])
  }
})

test('filter: exact JSON text, ~ contains, * wildcard, escapes; bad paths are refused', async (t) => {
  const app = await redirectsApp(t, redirectsFile(t, ROWS))
  const token = await app.issueToken([REDIRECTS_SCOPE])
  const filtered = async (expr: string) => {
    const res = await app.get(`${REDIRECTS}?limit=200&filter=${encodeURIComponent(expr)}`, token)
    assert.equal(res.statusCode, 200, `${expr}: ${res.body}`)
    return ids(res.json().data)
  }
  assert.deepEqual(await filtered('statusCode:308'), ['r04', 'r08', 'r12', 'r16', 'r20'])
  assert.deepEqual(await filtered('enabled:false'), ['r01', 'r06', 'r11', 'r16', 'r21'])
  assert.deepEqual(await filtered('to:~SHOP.example'), ROWS.filter((r) => r.to.includes('Shop')).map((r) => r.id))
  assert.deepEqual(await filtered('from:/old/1*'), ['r01', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15', 'r16', 'r17', 'r18', 'r19'])
  assert.deepEqual(await filtered('from:/sale\\,2024'), ['r06'])
  assert.deepEqual(await filtered('from:/old/2,statusCode:302'), ['r02'])
  assert.deepEqual(await filtered('from:/OLD/2'), [])
  assert.deepEqual(await filtered('updatedAt:2024-01-0*,enabled:true'), ['r02', 'r03', 'r04', 'r05', 'r07', 'r08', 'r09'])

  const bad = await app.get(`${REDIRECTS}?filter=target:x`, token)
  assert.equal(bad.statusCode, 400)
  assert.equal(bad.json().error.details[0].param, 'filter')
  assert.match(bad.json().error.details[0].problem, /unknown field "target".*valid fields: id, from, to, statusCode, enabled, updatedAt/)
})

test('the provider\'s own parameters q, from, statusCode and enabled; bad values name the parameter', async (t) => {
  const app = await redirectsApp(t, redirectsFile(t, ROWS))
  const token = await app.issueToken([REDIRECTS_SCOPE])
  const get = async (query: string) => ids((await app.get(`${REDIRECTS}?limit=200&${query}`, token)).json().data)
  assert.deepEqual(await get('q=SHOP.EXAMPLE'), ROWS.filter((r) => r.to.includes('Shop')).map((r) => r.id))
  assert.deepEqual(await get('q=sale'), ['r06'])
  assert.deepEqual(await get(`from=${encodeURIComponent('/old/12')}`), ['r12'])
  assert.deepEqual(await get('statusCode=307'), ['r03', 'r07', 'r11', 'r15', 'r19', 'r23'])
  assert.deepEqual(await get('enabled=off'), ['r01', 'r06', 'r11', 'r16', 'r21'])
  assert.deepEqual(await get('enabled=1&statusCode=307'), ['r03', 'r07', 'r15', 'r19', 'r23'])

  const bad = await app.get(`${REDIRECTS}?statusCode=300&enabled=maybe&sort=id&limit=0`, token)
  assert.equal(bad.statusCode, 400)
  const details = Object.fromEntries(bad.json().error.details.map((d: { param: string; problem: string }) => [d.param, d.problem]))
  assert.equal(details.statusCode, 'must be one of: 301, 302, 307, 308')
  assert.equal(details.sort, 'unknown parameter')
  assert.ok(details.limit, 'limit named')
  assert.ok(details.enabled, 'enabled named')
})

test('scope, method, rate limit and metrics apply as to every machine route', async (t) => {
  const app = await redirectsApp(t, redirectsFile(t, ROWS), { PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '3' })
  const reader = await app.issueToken([REDIRECTS_SCOPE, 'metrics:read'])
  const other = await app.issueToken(['plugins:redirects:other:read', 'products:read'])

  for (const url of [REDIRECTS, `${REDIRECTS}/r01`]) {
    const denied = await app.get(url, other)
    assert.equal(denied.statusCode, 403)
    assert.equal(denied.json().error.message, `Missing required scope: ${REDIRECTS_SCOPE}`)
  }
  const anonymous = await app.get(REDIRECTS)
  assert.equal(anonymous.statusCode, 401)

  const post = await app.post(REDIRECTS, {}, reader)
  assert.equal(post.statusCode, 405)
  assert.equal(post.headers.allow, 'GET, HEAD')
  const postOne = await app.post(`${REDIRECTS}/r01`, {}, reader)
  assert.equal(postOne.statusCode, 405)

  const ok = await app.get(`${REDIRECTS}?limit=1`, reader)
  assert.equal(ok.statusCode, 200)
  assert.equal(ok.headers['x-ratelimit-limit'], '3')
  assert.equal(ok.headers['x-ratelimit-remaining'], '0')
  const limited = await app.get(`${REDIRECTS}?limit=1`, reader)
  assert.equal(limited.statusCode, 429)
  assert.equal(limited.json().error.code, 'RATE_LIMIT_EXCEEDED')
  assert.ok(Number(limited.headers['retry-after']) > 0)

  const fresh = await app.issueToken(['metrics:read'])
  const snapshot = (await app.get(`${BASE_PATH}/metrics`, fresh)).json().data
  const counted = (route: string, status: number) => snapshot.requests.find((r: { route: string; status: number }) => r.route === route && r.status === status)?.count
  assert.equal(counted('plugins.redirects.redirects.list', 200), 1)
  assert.equal(counted('plugins.redirects.redirects.list', 429), 1)
  assert.equal(counted('plugins.redirects.redirects.list', 403), 1)
  assert.equal(counted('plugins.redirects.redirects.show', 403), 1)
})

// The router passed at most 100 characters to a path parameter: a valid 120-character id was a
// 414 URI_TOO_LONG, before authentication. Now the route's schema bounds it (256), after it.
test('ids up to the schema bound reach the route; past it, a 400 naming id, and no token is still a 401 first', async (t) => {
  const long = 'r'.repeat(120)
  const app = await redirectsApp(t, redirectsFile(t, [{ id: long, from: '/long', to: '/long2' }]))
  const token = await app.issueToken([REDIRECTS_SCOPE])
  const found = await app.get(`${REDIRECTS}/${long}`, token)
  assert.equal(found.statusCode, 200, found.body)
  assert.equal(found.json().data.id, long)
  assert.equal((await app.get(`${REDIRECTS}/${'x'.repeat(200)}`, token)).statusCode, 404)
  const tooLong = await app.get(`${REDIRECTS}/${'x'.repeat(300)}`, token)
  assert.equal(tooLong.statusCode, 400, tooLong.body)
  assert.equal(tooLong.json().error.details[0].param, 'id')
  assert.equal((await app.get(`${REDIRECTS}/${'x'.repeat(300)}`)).statusCode, 401)
  // A NUL in a path parameter is refused as in a query or body, before the provider is asked.
  const nul = await app.get(`${REDIRECTS}/a%00b`, token)
  assert.equal(nul.statusCode, 400, nul.body)
  assert.deepEqual(nul.json().error.details, [{ param: 'id', problem: 'must not contain NUL characters' }])
})
