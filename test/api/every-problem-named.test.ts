// One 400 names every bad parameter (DESIGN §4: details[] names each parameter): the query
// string schema's problems and the operation's own (filter, fields, cursor, parameters that
// need another) come in the same answer on lists, details and the change feed. What can be
// told only of valid parameters (does this cursor belong to this query?) is judged once they are.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/test-app.js'
import { BASE_PATH } from '../../src/kernel/machine-route.js'

const problemsOf = async (app: TestApp, url: string, token: string) => {
  const res = await app.get(`${BASE_PATH}${url}`, token)
  assert.equal(res.statusCode, 400, res.body)
  const { error } = res.json()
  assert.equal(error.code, 'INVALID_REQUEST')
  const details = error.details as { param: string; problem: string }[]
  // The message names the same parameters as the details.
  assert.equal(error.message, details.length === 1 ? `Invalid parameter: ${details[0].param}` : `Invalid parameters: ${[...new Set(details.map((d) => d.param))].join(', ')}`)
  return Object.fromEntries(details.map((d) => [d.param, d.problem]))
}

test('a list, a detail and the feed name every bad parameter in one 400; a refused call is no use of the credential', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['entries:read', 'products:read', 'changes:read'])
  const [credential] = await app.services.credentials.list()

  // The schema's (limit, an unknown parameter) and the list's own (filter, fields, cursor).
  assert.deepEqual(await problemsOf(app, '/entries?limit=abc&bogus=1&filter=((&fields=nope&cursor=zz', token), {
    limit: 'must be integer',
    bogus: 'unknown parameter',
    filter: '"((" is not path:value',
    fields: 'unknown field "nope"; valid fields: id, uid, createdAt, updatedAt, section, type, title, slug, status, postDate, expiryDate, authorId, url, fields',
    cursor: 'malformed cursor',
  })
  // A parameter that needs another, beside the schema's problem.
  assert.deepEqual(await problemsOf(app, '/products?lowStockThreshold=3&limit=0', token), { limit: 'must be >= 1', lowStockThreshold: 'needs lowStock=true' })
  // …but not when that other one is itself refused: its own problem is the one to fix.
  assert.deepEqual(await problemsOf(app, '/products?lowStock=maybe&lowStockThreshold=3', token), { lowStock: 'must be one of: true, false, 1, 0, yes, no, on, off' })
  // A detail: the selector's type and the projection.
  assert.deepEqual(await problemsOf(app, '/entries/show?id=abc&fields=nope', token), {
    id: 'must be integer',
    fields: 'unknown field "nope"; valid fields: id, uid, createdAt, updatedAt, section, type, title, slug, status, postDate, expiryDate, authorId, url, fields',
  })
  assert.deepEqual(await problemsOf(app, '/entries/show?id=abc&slug=news&limit=1', token), {
    id: 'must be integer', limit: 'unknown parameter', slug: 'exactly one of id, slug is required',
  })
  // The feed: the schema's, the origin's, the types' and the cursor's…
  const origins = 'must be one of: admin, credential, control, import, job, system'
  assert.deepEqual(await problemsOf(app, '/changes?limit=abc&origin=bogus&types=nope&cursor=zz', token), {
    limit: 'must be integer',
    origin: `unknown origin bogus; ${origins}`,
    cursor: 'malformed cursor',
    types: 'unknown type nope; must be one of: products, variants, subscriptions, transfers, donations, orders, entries, assets, categories, tags, globalsets, contentblocks',
  })
  // …and a snapshot filter's or projection's, which are judged against the page's types.
  assert.deepEqual(await problemsOf(app, '/changes?limit=abc&origin=bogus&types=entries&filter=((&fields=nope', token), {
    limit: 'must be integer',
    origin: `unknown origin bogus; ${origins}`,
    fields: 'unknown field "nope"; valid fields: id, uid, createdAt, updatedAt, section, type, title, slug, status, postDate, expiryDate, authorId, url, fields',
    filter: 'type entries: "((" is not path:value (a filter path must exist in every type of the page; name types to narrow it)',
  })

  // Query parameters are flat: an unknown `id.x` or `filter.x` is not `id` or `filter`.
  assert.deepEqual(await problemsOf(app, '/entries/show?slug=a&id.x=1', token), { 'id.x': 'unknown parameter' })
  assert.deepEqual(await problemsOf(app, '/entries?filter=((&filter.x=1', token), { 'filter.x': 'unknown parameter', filter: '"((" is not path:value' })
  // Refusals by the operation's own checks alone, and a 403 for a status the scopes do not open.
  assert.equal((await app.get(`${BASE_PATH}/entries?filter=((`, token)).statusCode, 400)
  assert.equal((await app.get(`${BASE_PATH}/entries?status=disabled`, token)).statusCode, 403)

  // Not one of these refusals counted as a use of the credential (DESIGN §10).
  await app.services.credentials.flushUsage()
  assert.equal((await app.services.credentials.get(credential.id)).firstUsedAt, null)
  // (A call that passes every check is one.)
  assert.equal((await app.get(`${BASE_PATH}/entries?limit=1`, token)).statusCode, 200)
  await app.services.credentials.flushUsage()
  assert.notEqual((await app.services.credentials.get(credential.id)).firstUsedAt, null)
})

test('a cursor is judged against its query only once the query is valid; a scope the query asks for comes first', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['products:read', 'entries:read', 'changes:read'])
  for (const slug of ['a', 'b']) await app.services.store.create('products', { type: 'mug', title: `Mug ${slug}`, slug })
  const first = await app.get(`${BASE_PATH}/products?limit=1&sort=title`, token)
  assert.equal(first.statusCode, 200, first.body)
  const cursor = encodeURIComponent(first.json().pagination.nextCursor)
  // Valid again with the parameters of its first page.
  assert.equal((await app.get(`${BASE_PATH}/products?limit=1&sort=title&cursor=${cursor}`, token)).statusCode, 200)
  // With another valid query, the cursor is the problem.
  assert.deepEqual(await problemsOf(app, `/products?limit=1&sort=-title&cursor=${cursor}`, token), { cursor: 'cursor belongs to a different query; repeat the parameters of the first page' })
  // With a refused sort, only the sort is named: the cursor cannot be judged against it.
  assert.deepEqual(Object.keys(await problemsOf(app, `/products?limit=1&sort=bogus&cursor=${cursor}`, token)), ['sort'])

  // The feed's cursor keeps its types: another set is named, as is a bad limit beside it.
  const feed = await app.get(`${BASE_PATH}/changes?types=products&limit=1`, token)
  const feedCursor = encodeURIComponent(feed.json().pagination.nextCursor)
  assert.deepEqual(await problemsOf(app, `/changes?types=entries&cursor=${feedCursor}&limit=0`, token), {
    limit: 'must be >= 1', types: 'the cursor belongs to types products; repeat them or leave types out',
  })

  // A status the caller's scopes do not open is a 403 before any problem of the input.
  const drafts = await app.get(`${BASE_PATH}/entries?status=disabled&limit=abc`, token)
  assert.deepEqual([drafts.statusCode, drafts.json().error.message], [403, 'Missing required scope: entries:read_all_statuses'])
  for (const query of ['types=orders&limit=abc', 'types=orders&filter.x=1']) {
    const orders = await app.get(`${BASE_PATH}/changes?${query}`, token)
    assert.deepEqual([orders.statusCode, orders.json().error.message], [403, 'Missing required scope: orders:read'], query)
  }
})
