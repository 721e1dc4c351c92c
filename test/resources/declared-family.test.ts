// A family declared only here, with no other file changed, is a whole family: its table is
// created on an existing database, and routes, contract, scopes, change feed, sync state and
// the admin API all follow from the declaration (docs/architecture.md, "Adding a resource
// family", step by step). Its event type and boundary axis are served too: webhook interests
// (admin API and panel), delivery-log filters, and workflow boundaries applied to reads.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Type } from '@sinclair/typebox'
import { declareResource } from '../../src/resources/declare.js'
import { allResources, createRegistry } from '../../src/resources/index.js'
import { buildTestApp, testDatabase, testDialects } from '../helpers/test-app.js'
import { ADMIN, ADMIN_TOKEN, adminClient, dataOf } from '../admin/helpers/admin-client.js'
import { createAdmin } from '../../src/auth/admin-accounts.js'
import { ADMIN_PASSWORD, ADMIN_USER, signedIn } from '../panel/helpers/panel-client.js'

// Step 1 of the guide: declare it.
const coupons = declareResource({
  type: 'coupons', changeType: 'coupons', eventType: 'coupon', table: 'coupons', summary: 'Discount coupons',
  group: 'commerce', scope: 'coupons:read',
  // Boundaries can list coupons by id, and a coupon is inside a boundary that lists it.
  boundaryAxis: { name: 'couponIds', key: 'id', noun: 'coupon', example: '7, 8' }, readBoundary: { couponIds: 'id' },
  columns: { code: { type: 'text', unique: true }, percentOff: { type: 'integer' }, status: { type: 'text' } },
  searchColumns: ['code'],
  status: { values: ['active', 'expired'], default: 'active' },
  selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'code', column: 'code', type: 'text' }],
  listParams: { q: { kind: 'search' }, percentOff: { kind: 'equals', column: 'percentOff', type: 'integer' } },
  properties: {
    code: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Z0-9-]+$' }),
    percentOff: Type.Integer({ minimum: 1, maximum: 100 }),
    status: Type.Union([Type.Literal('active'), Type.Literal('expired')]),
  },
  required: ['code', 'percentOff'],
})
// Step 2: add it to the registry the app is built with.
const withCoupons = createRegistry([...allResources, coupons])

for (const dialect of await testDialects()) {
  test(`${dialect}: a family declared only in a test gets its table, routes, contract, scopes, feed and admin API`, async (t) => {
    // An existing database: built and used by an app without the family.
    const database = await testDatabase(dialect)
    t.after(() => database.destroy())
    const before = await buildTestApp({ dialect, database })
    await before.services.store.create('tags', { group: 'g', title: 'Existing', slug: 'existing' })
    await before.close()

    const app = await buildTestApp({ dialect, database, resources: withCoupons, env: { PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN } })
    t.after(() => app.close())
    const admin = async (method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) => {
      const res = await app.app.inject({ method, url: ADMIN + path, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) }, payload: body ? JSON.stringify(body) : undefined })
      return { statusCode: res.statusCode, json: () => JSON.parse(res.body) }
    }

    // The admin API writes it (the table exists on the upgraded database) and validates it.
    const created = await admin('POST', '/coupons', { code: 'SPRING-10', percentOff: 10 })
    assert.equal(created.statusCode, 201)
    const id = created.json().data.id
    assert.equal(created.json().data.status, 'active')
    assert.equal((await admin('POST', '/coupons', { code: 'spring', percentOff: 300 })).statusCode, 400)
    await admin('POST', '/coupons', { code: 'OLD-5', percentOff: 5, status: 'expired' })

    // Machine API: list (status default, family parameters), detail by each selector, scope.
    const token = await app.issueToken(['coupons:read', 'changes:read', 'capabilities:read', 'openapi:read', 'schema:read', 'syncstate:write'])
    const list = await app.get('/gatehouse/v1/coupons', token)
    assert.equal(list.statusCode, 200)
    assert.deepEqual(list.json().data.map((c: { code: string }) => c.code), ['SPRING-10'])
    assert.deepEqual((await app.get('/gatehouse/v1/coupons?status=all&percentOff=5', token)).json().data.map((c: { code: string }) => c.code), ['OLD-5'])
    assert.equal((await app.get('/gatehouse/v1/coupons/show?code=SPRING-10', token)).json().data.id, id)
    assert.equal((await app.get(`/gatehouse/v1/coupons/show?id=${id}`, token)).json().data.code, 'SPRING-10')
    const denied = await app.get('/gatehouse/v1/coupons', await app.issueToken(['products:read']))
    assert.equal(denied.statusCode, 403)
    assert.match(denied.json().error.message, /coupons:read/)

    // Contract: capabilities (endpoints and scopes), OpenAPI, schema catalog, scope catalogue.
    const caps = (await app.get('/gatehouse/v1/capabilities', token)).json().data
    assert.ok(caps.endpoints.some((e: { path: string }) => e.path === '/gatehouse/v1/coupons/show'))
    assert.deepEqual(caps.scopes.find((s: { scope: string }) => s.scope === 'coupons:read'), { scope: 'coupons:read', group: 'commerce', description: 'Discount coupons', deprecatedFor: null })
    const openapi = (await app.get('/gatehouse/v1/openapi.json', token)).json()
    assert.ok(openapi.paths['/coupons'].get && openapi.paths['/coupons/show'].get, 'OpenAPI paths (relative to the base path server)')
    assert.ok(JSON.stringify(openapi.components.schemas).includes('percentOff'), 'the item schema is in the document')
    const schema = await app.get('/gatehouse/v1/schema?endpoint=coupons.list', token)
    assert.equal(schema.statusCode, 200)
    assert.ok(app.services.scopes.isKnown('coupons:read'))

    // Change feed and sync state know the type; updates and deletes reach the feed.
    assert.equal((await admin('PATCH', `/coupons/${id}`, { percentOff: 15 })).statusCode, 200)
    assert.equal((await admin('DELETE', `/coupons/${id}`)).statusCode, 204)
    const feed = await app.get('/gatehouse/v1/changes?types=coupons', token)
    assert.equal(feed.statusCode, 200)
    const mine = feed.json().data.filter((c: { resourceId: number }) => c.resourceId === id)
    assert.deepEqual(mine.map((c: { action: string }) => c.action), ['created', 'updated', 'deleted'])
    assert.ok(caps.endpoints.find((e: { key: string }) => e.key === 'changes.feed'))
    const checkpoint = await app.post('/gatehouse/v1/sync-state/checkpoint', { resourceType: 'coupons', cursor: feed.json().pagination.nextCursor }, token)
    assert.equal(checkpoint.statusCode, 200, checkpoint.body)
    assert.equal(checkpoint.json().data.resourceType, 'coupons')
  })
}

for (const dialect of await testDialects()) {
  test(`${dialect}: a declared event type and boundary axis reach webhook interests, the delivery log and workflow boundaries`, async (t) => {
    const app = await buildTestApp({
      dialect, resources: withCoupons,
      env: { PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN, PLUGIN_GATEHOUSE_WEBHOOK_URL: 'http://127.0.0.1:9/hook', PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'declared-family-secret-0123456789abcdef' },
    })
    t.after(() => app.close())
    const admin = adminClient(app, ADMIN_TOKEN)
    let now = Date.parse('2025-06-02T08:00:00Z')
    app.services.jobs.useClock(() => now)

    // Admin API: an interest in `coupon` events and a boundary on `couponIds` are accepted;
    // an undeclared event type or axis is a 400 naming the field and the declared values.
    const worker = dataOf(await admin.post('/credentials', {
      label: 'coupon worker', scopes: ['coupons:read', 'jobs:read', 'jobs:report'],
      webhookInterests: [{ resourceType: 'coupon', actions: ['created', 'updated'] }], boundaries: { couponIds: [5] },
    }), 201)
    assert.deepEqual(worker.webhookInterests, [{ resourceType: 'coupon', actions: ['created', 'updated'] }])
    assert.deepEqual(worker.boundaries, { couponIds: [5] })
    const badType = await admin.post('/credentials', { label: 'x', scopes: ['coupons:read'], webhookInterests: [{ resourceType: 'voucher', actions: ['created'] }] })
    assert.equal(badType.statusCode, 400)
    const typeDetail = badType.json().error.details.find((d: { param: string }) => d.param === 'webhookInterests.0.resourceType')
    assert.match(typeDetail.problem, /\bcoupon\b/, typeDetail.problem)
    const badAxis = await admin.post('/credentials', { label: 'x', scopes: ['coupons:read'], boundaries: { voucherIds: [1] } })
    assert.equal(badAxis.statusCode, 400)
    assert.ok(badAxis.json().error.details.some((d: { param: string }) => d.param === 'boundaries.voucherIds'), badAxis.body)

    // Panel: the create form has a row for coupon events and a field for coupon ids, and stores what the API stores.
    await createAdmin(app.services.database.db, ADMIN_USER, ADMIN_PASSWORD)
    const panel = await signedIn(app)
    const form = await panel.page('/gatehouse/cp/accounts/new')
    assert.match(form.body, /name="interests" value="coupon:deleted"/)
    assert.match(form.body, /<label id="field-couponIds">Coupon ids <input type="text" name="couponIds"/)
    const badIds = await panel.submit('/gatehouse/cp/accounts', { label: 'panel', scopes: ['coupons:read'], couponIds: '7 x' })
    assert.equal(badIds.statusCode, 400)
    assert.match(badIds.body, /Write coupon ids as whole numbers separated by commas or spaces \(&quot;x&quot; is not one\)/)
    const made = await panel.submit('/gatehouse/cp/accounts', { label: 'panel', scopes: ['coupons:read'], interests: ['coupon:deleted'], couponIds: '7, 8' })
    assert.equal(made.statusCode, 303, made.body.slice(0, 500))
    const stored = (await app.services.credentials.list()).find((c) => c.label === 'panel')
    assert.deepEqual(stored?.webhookInterests, [{ resourceType: 'coupon', actions: ['deleted'] }])
    assert.deepEqual(stored?.boundaries, { couponIds: [7, 8] })
    assert.match((await panel.page(`/gatehouse/cp/accounts/${stored?.id}`)).body, /<dd>coupons 7, 8<\/dd>/)

    // Writes queue coupon events; the delivery log filters on their type and resource.
    const inside = dataOf(await admin.post('/coupons', { code: 'IN-10', percentOff: 10 }), 201).id as number
    const outside = dataOf(await admin.post('/coupons', { code: 'OUT-20', percentOff: 20 }), 201).id as number
    dataOf(await admin.patch(`/coupons/${inside}`, { percentOff: 12 }))
    const events = async (query: string) => {
      const res = await admin.get(`/webhooks/deliveries?${query}`)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data.map((d: { eventType: string; resourceId: number }) => `${d.eventType}:${d.resourceId}`).sort()
    }
    assert.deepEqual(await events('eventType=coupon.created'), [`coupon.created:${inside}`, `coupon.created:${outside}`])
    assert.deepEqual(await events('eventType=coupon'), [`coupon.created:${inside}`, `coupon.created:${outside}`, `coupon.updated:${inside}`])
    assert.deepEqual(await events(`resource=coupon:${inside}`), [`coupon.created:${inside}`, `coupon.updated:${inside}`])
    const badFilter = await admin.get('/webhooks/deliveries?eventType=voucher.created')
    assert.equal(badFilter.statusCode, 400)
    assert.match(badFilter.json().error.message + JSON.stringify(badFilter.json().error.details), /eventType.*coupon\.created/)
    const deliveries = await panel.page('/gatehouse/cp/deliveries?eventType=coupon.updated')
    assert.equal(deliveries.statusCode, 200)
    assert.match(deliveries.body, /<option value="coupon.updated" selected>coupon.updated<\/option>/)
    assert.match(deliveries.body, new RegExp(`coupon:${inside}`))

    // A workflow bounded on coupon ids: while its run is open, the worker reads only those coupons.
    const wf = dataOf(await admin.post('/workflows', {
      name: 'Coupon sync', templateKey: 'scheduled-catalog-sync', credentialId: worker.id,
      schedule: { cron: '0 * * * *', timezone: 'UTC' }, boundary: { couponIds: [inside, inside] },
    }), 201)
    assert.deepEqual(wf.boundary, { sections: [], couponIds: [inside], entryIds: [], productIds: [] })
    const empty = await admin.post('/workflows', { name: 'Empty', templateKey: 'x', credentialId: worker.id, schedule: { cron: '0 * * * *', timezone: 'UTC' }, boundary: { couponIds: [] } })
    assert.equal(empty.statusCode, 400)
    assert.match(empty.body, /name at least one section, coupon id, entry id or product id/)
    const token = worker.token as string
    assert.deepEqual((await app.get('/gatehouse/v1/coupons', token)).json().data.map((c: { id: number }) => c.id).sort(), [inside, outside].sort())
    now = Date.parse('2025-06-02T09:01:00Z')
    const run = await app.post('/gatehouse/v1/workflows/run-report', { workflowId: wf.id, status: 'started', workerId: 'w1' }, token)
    assert.equal(run.statusCode, 200, run.body)
    assert.deepEqual((await app.get('/gatehouse/v1/coupons', token)).json().data.map((c: { id: number }) => c.id), [inside])
    assert.equal((await app.get(`/gatehouse/v1/coupons/show?id=${inside}`, token)).statusCode, 200)
    const refused = await app.get(`/gatehouse/v1/coupons/show?id=${outside}`, token)
    assert.equal(refused.statusCode, 403)
    assert.match(refused.json().error.message, /outside the read boundary of workflow "Coupon sync"/)
    const shown = await app.get(`/gatehouse/v1/workflows/show?id=${wf.id}`, token)
    assert.deepEqual(shown.json().data.boundary.couponIds, [inside])
  })
}

test('a read boundary on an axis no family declares, or an axis keyed on a column that is not unique text, is refused at declaration', () => {
  const draft = { type: 'vouchers', changeType: 'vouchers', table: 'vouchers', summary: 'Vouchers', columns: { code: { type: 'text' as const } }, properties: { code: Type.String() } }
  assert.throws(() => createRegistry([...allResources, declareResource({ ...draft, readBoundary: { voucherIds: 'id' } })]), /vouchers: read boundary names unknown axis voucherIds; declared: .*productIds/)
  assert.throws(() => declareResource({ ...draft, boundaryAxis: { name: 'voucherCodes', key: 'code', noun: 'voucher', example: 'A, B' } }), /boundary axis key code is neither id nor a unique text column/)
  assert.throws(() => createRegistry([...allResources, declareResource({ ...draft, boundaryAxis: { name: 'productIds', key: 'id', noun: 'voucher', example: '1' } })]), /boundary axis "productIds" is also used by/)
  assert.deepEqual(createRegistry([...allResources, coupons]).boundaryAxes.map((a) => a.name), ['sections', 'couponIds', 'entryIds', 'productIds'])
})
