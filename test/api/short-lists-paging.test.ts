// The lists that are not record lists page like every list (docs/api.md, Lists): /incidents
// (also on the admin API), /templates, /starter-packs and /control/policies take `limit` and
// `cursor`, answer `pagination`, and a page of one tells whether more exist. Following
// nextCursor gives exactly the whole list in its order; a bad `limit` or `cursor` (forged,
// edited, or from another query) is a 400 naming that parameter. Every answer is also checked
// against the OpenAPI document by the test app.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects, type TestApp, type TestResponse } from '../helpers/test-app.js'
import { ADMIN_TOKEN, controlApp } from '../control/helpers/control-app.js'
import { templateCatalog } from '../../src/ops/templates/catalog.js'

interface Page { data: Record<string, unknown>[]; pagination: { hasMore: boolean; nextCursor: string | null }; meta?: { mode: string } }

const sep = (path: string) => (path.includes('?') ? '&' : '?')

/** Follows nextCursor from the first page to the last, checking each page's pagination. */
async function pageAll(get: (url: string) => Promise<TestResponse>, path: string, limit: number): Promise<{ items: Record<string, unknown>[]; pages: number }> {
  const items: Record<string, unknown>[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const res = await get(`${path}${sep(path)}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
    assert.equal(res.statusCode, 200, res.body)
    const page = res.json() as Page
    assert.ok(page.data.length <= limit, 'a page holds at most limit items')
    assert.equal(page.meta?.mode, 'full')
    if (page.pagination.hasMore) {
      assert.equal(typeof page.pagination.nextCursor, 'string')
      assert.equal(page.data.length, limit, 'only the last page is short')
    } else {
      assert.equal(page.pagination.nextCursor, null)
    }
    items.push(...page.data)
    cursor = page.pagination.nextCursor
    pages++
    assert.ok(pages <= 100, 'paging ends')
  } while (cursor !== null)
  return { items, pages }
}

function assertNames(res: TestResponse, param: string, why: string): void {
  assert.equal(res.statusCode, 400, `${why}: ${res.body}`)
  const body = res.json()
  assert.equal(body.error.code, 'INVALID_REQUEST')
  assert.ok(body.error.details.some((d: { param: string }) => d.param === param), `${why}: names ${param}: ${res.body}`)
  assert.doesNotMatch(res.body, /at .*\.ts:|SELECT|stack/i, 'no internals in the answer')
}

/** A bad limit or cursor is a 400 naming it; `otherQuery` is the same list with other parameters, if it has any. */
async function assertBadPaging(get: (url: string) => Promise<TestResponse>, path: string, otherQuery?: string): Promise<void> {
  for (const limit of ['0', '201', 'ten', '-1', '1.5']) assertNames(await get(`${path}${sep(path)}limit=${limit}`), 'limit', `limit=${limit}`)
  assertNames(await get(`${path}${sep(path)}cursor=not-a-cursor`), 'cursor', 'a malformed cursor')
  const first = (await get(`${path}${sep(path)}limit=1`)).json() as Page
  const cursor = first.pagination.nextCursor
  assert.ok(cursor, `${path}?limit=1 tells that more exist`)
  // An edited cursor: its payload changed, its signature kept.
  const [body, signature] = cursor.split('.')
  const edited = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), p: 'zzz' })).toString('base64url')
  assertNames(await get(`${path}${sep(path)}cursor=${edited}.${signature}`), 'cursor', 'an edited cursor')
  assertNames(await get(`${path}${sep(path)}cursor=${body}.${'A'.repeat(signature.length)}`), 'cursor', 'a forged signature')
  if (otherQuery !== undefined) assertNames(await get(`${otherQuery}${sep(otherQuery)}cursor=${encodeURIComponent(cursor)}`), 'cursor', 'a cursor of another query')
}

async function insertResolvedIncident(app: TestApp, id: string, category: string, openedAt: number): Promise<void> {
  await app.database.db.insertInto('ops_incidents').values({
    id, category, signal: category, severity: 'warn', peak_severity: 'warn', opened_at: openedAt, resolved_at: openedAt + 60_000,
    updated_at: openedAt + 60_000, value: 0, peak_value: 12, thresholds: JSON.stringify({ warn: { count: 10 } }), window_seconds: 300,
  }).execute()
}

for (const dialect of await testDialects()) {
  test(`${dialect}: /incidents pages open first, then newest opened, on the machine and admin API; bad limit and cursor are 400s`, async () => {
    const app = await controlApp(dialect)
    try {
      const ops = await app.token(['incidents:read'])
      const get = (url: string) => app.get(url, ops)
      // Two open incidents from real traffic: bad tokens and missing scopes.
      for (let i = 0; i < 12; i++) assert.equal((await app.get('/gatehouse/v1/health', `gth_wrong-${i}`)).statusCode, 401)
      const narrow = await app.token(['health:read'])
      for (let i = 0; i < 25; i++) assert.equal((await app.get('/gatehouse/v1/lifecycle', narrow)).statusCode, 403)
      // Three resolved ones, two opened at the same moment (the id decides between them).
      const day = 86_400_000
      const now = Date.now()
      await insertResolvedIncident(app, 'inc_0000000000000002', 'server_errors', now - 2 * day)
      await insertResolvedIncident(app, 'inc_0000000000000001', 'webhook_failures', now - 2 * day)
      await insertResolvedIncident(app, 'inc_0000000000000003', 'dlq_growth', now - day)

      const one = (await get('/gatehouse/v1/incidents?limit=1')).json() as Page
      assert.equal(one.data.length, 1)
      assert.equal(one.pagination.hasMore, true, '?limit=1 tells that more exist')

      const whole = (await get('/gatehouse/v1/incidents?limit=200')).json() as Page
      assert.equal(whole.pagination.hasMore, false)
      assert.deepEqual(whole.data.map((i) => i.status), ['open', 'open', 'resolved', 'resolved', 'resolved'])
      assert.deepEqual(new Set(whole.data.slice(0, 2).map((i) => i.category)), new Set(['auth_failures', 'scope_denials']))
      assert.deepEqual(whole.data.slice(2).map((i) => i.id), ['inc_0000000000000003', 'inc_0000000000000001', 'inc_0000000000000002'])

      for (const limit of [1, 2, 3]) {
        const { items, pages } = await pageAll(get, '/gatehouse/v1/incidents', limit)
        assert.deepEqual(items.map((i) => i.id), whole.data.map((i) => i.id), `limit=${limit}: every incident once, in order`)
        assert.equal(pages, Math.ceil(5 / limit))
      }
      const resolved = await pageAll(get, '/gatehouse/v1/incidents?status=resolved', 1)
      assert.deepEqual(resolved.items.map((i) => i.id), ['inc_0000000000000003', 'inc_0000000000000001', 'inc_0000000000000002'])
      // The default page size still holds them all (the operations-watch pack reads one page).
      assert.equal(((await get('/gatehouse/v1/incidents')).json() as Page).data.length, 5)

      await assertBadPaging(get, '/gatehouse/v1/incidents', '/gatehouse/v1/incidents?status=resolved')

      // The admin API answers the same pages.
      const adminGet = (url: string) => app.get(url, ADMIN_TOKEN)
      const adminOne = (await adminGet('/gatehouse/admin/v1/incidents?limit=1')).json() as Page
      assert.equal(adminOne.pagination.hasMore, true)
      const adminAll = await pageAll(adminGet, '/gatehouse/admin/v1/incidents', 2)
      assert.deepEqual(adminAll.items.map((i) => i.id), whole.data.map((i) => i.id))
      assertNames(await adminGet('/gatehouse/admin/v1/incidents?limit=0'), 'limit', 'admin limit=0')
      assertNames(await adminGet(`/gatehouse/admin/v1/incidents?status=open&cursor=${encodeURIComponent(adminOne.pagination.nextCursor as string)}`), 'cursor', 'admin: a cursor of another query')
    } finally {
      await app.close()
    }
  })

  test(`${dialect}: /templates, /starter-packs and /control/policies page in their order; bad limit and cursor are 400s`, async () => {
    const app = await controlApp(dialect)
    try {
      const templates = await app.token(['templates:read'])
      const getTemplates = (url: string) => app.get(url, templates)
      const catalogIds = templateCatalog.map((t) => t.id)
      for (const path of ['/gatehouse/v1/templates', '/gatehouse/v1/starter-packs']) {
        const key = path.endsWith('templates') ? 'id' : 'templateId'
        const one = (await getTemplates(`${path}?limit=1`)).json() as Page
        assert.deepEqual(one.data.map((t) => t[key]), [catalogIds[0]])
        assert.equal(one.pagination.hasMore, true, `${path}?limit=1 tells that more exist`)
        for (const limit of [1, 4]) {
          const { items } = await pageAll(getTemplates, path, limit)
          assert.deepEqual(items.map((t) => t[key]), catalogIds, `${path} limit=${limit}: the catalog in order`)
        }
        const only = (await getTemplates(`${path}?${key}=${catalogIds[1]}&limit=1`)).json() as Page
        assert.deepEqual(only.data.map((t) => t[key]), [catalogIds[1]])
        assert.deepEqual(only.pagination, { hasMore: false, nextCursor: null })
        await assertBadPaging(getTemplates, path, `${path}?${key}=${catalogIds[0]}`)
      }

      for (const [handle, actionPattern] of [['prices', 'variant.setPrice'], ['stock', 'variant.adjustStock'], ['drafts', 'entry.*']]) {
        const res = await app.upsertPolicy({ handle, displayName: handle, actionPattern, requiresApproval: true, requiredApprovals: 2 })
        assert.ok(res.statusCode < 300, res.body)
      }
      const reader = await app.token(['control:policies:read'])
      const getPolicies = (url: string) => app.get(url, reader)
      const whole = (await getPolicies('/gatehouse/v1/control/policies?limit=200')).json() as Page
      assert.deepEqual(whole.data.map((p) => p.handle), ['drafts', 'prices', 'stock', 'builtin-default'], 'by handle, the built-in policy last')
      const one = (await getPolicies('/gatehouse/v1/control/policies?limit=1')).json() as Page
      assert.equal(one.pagination.hasMore, true, '?limit=1 tells that more exist')
      for (const limit of [1, 2, 3]) {
        const { items } = await pageAll(getPolicies, '/gatehouse/v1/control/policies', limit)
        assert.deepEqual(items.map((p) => p.handle), ['drafts', 'prices', 'stock', 'builtin-default'], `limit=${limit}`)
      }
      // A full last page of stored policies still says the built-in one follows.
      const three = (await getPolicies('/gatehouse/v1/control/policies?limit=3')).json() as Page
      assert.equal(three.pagination.hasMore, true)
      const rest = (await getPolicies(`/gatehouse/v1/control/policies?cursor=${encodeURIComponent(three.pagination.nextCursor as string)}`)).json() as Page
      assert.deepEqual(rest.data.map((p) => p.handle), ['builtin-default'])
      assert.deepEqual(rest.pagination, { hasMore: false, nextCursor: null })
      // No filters to mix up, so "another query" is a cursor of another list.
      await assertBadPaging(getPolicies, '/gatehouse/v1/control/policies')
      const templateCursor = ((await getTemplates('/gatehouse/v1/templates?limit=1')).json() as Page).pagination.nextCursor as string
      assertNames(await getPolicies(`/gatehouse/v1/control/policies?cursor=${encodeURIComponent(templateCursor)}`), 'cursor', "a templates cursor on policies")
    } finally {
      await app.close()
    }
  })
}
