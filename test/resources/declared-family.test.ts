// A family declared only here, with no other file changed, is a whole family: its table is
// created on an existing database, and routes, contract, scopes, change feed, sync state and
// the admin API all follow from the declaration (docs/architecture.md, "Adding a resource
// family", step by step).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Type } from '@sinclair/typebox'
import { declareResource } from '../../src/resources/declare.js'
import { allResources, createRegistry } from '../../src/resources/index.js'
import { buildTestApp, testDatabase, testDialects } from '../helpers/test-app.js'
import { ADMIN, ADMIN_TOKEN } from '../admin/helpers/admin-client.js'

// Step 1 of the guide: declare it.
const coupons = declareResource({
  type: 'coupons', changeType: 'coupons', table: 'coupons', summary: 'Discount coupons',
  group: 'commerce', scope: 'coupons:read',
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
