// Every resource family round-trips through the admin API: create → GET → PATCH → GET →
// DELETE → 404, with the full record (sensitive parts included) in each answer, derived
// values computed by the write service, and created/updated/deleted in the change log.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { allResources } from '../../src/resources/index.js'
import { testDialects } from '../helpers/test-app.js'
import { adminClient, adminTestApp, changeRows, dataOf } from './helpers/admin-client.js'
import { familySamples, prerequisites } from './helpers/family-samples.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

for (const dialect of await testDialects()) {
  test(`${dialect}: every resource family round-trips through the admin API`, async (t) => {
    const app = await adminTestApp(dialect)
    t.after(() => app.close())
    const admin = adminClient(app)
    const samples = familySamples(await prerequisites(admin))
    assert.deepEqual(Object.keys(samples).sort(), allResources.map((r) => r.type).sort(), 'a sample for every declared family')

    for (const r of allResources) {
      await t.test(r.type, async () => {
        const sample = samples[r.type]
        const created = dataOf(await admin.post(`/${r.type}`, sample.create), 201)
        assert.ok(Number.isInteger(created.id) && created.id > 0)
        assert.match(created.uid, UUID)
        assert.equal(created.createdAt, created.updatedAt)
        for (const [k, v] of Object.entries(sample.create)) assert.deepEqual(created[k], v, `${r.type}.${k} as given`)
        for (const [k, v] of Object.entries(sample.derivedAfterCreate ?? {})) assert.deepEqual(created[k], v, `${r.type}.${k} derived`)
        // Every declared property is present (defaults filled in), sensitive ones included.
        for (const key of [...r.publicKeys, ...r.sensitiveKeys]) assert.ok(key in created, `${r.type}.${key} present`)

        const read = dataOf(await admin.get(`/${r.type}/${created.id}`))
        assert.deepEqual(read, created)

        const patched = dataOf(await admin.patch(`/${r.type}/${created.id}`, sample.patch))
        for (const [k, v] of Object.entries(sample.patch)) assert.deepEqual(patched[k], v, `${r.type}.${k} patched`)
        for (const [k, v] of Object.entries(sample.derivedAfterPatch ?? {})) assert.deepEqual(patched[k], v, `${r.type}.${k} derived after patch`)
        for (const [k, v] of Object.entries(created)) {
          if (!(k in sample.patch) && k !== 'updatedAt' && !(k in (sample.derivedAfterPatch ?? {}))) assert.deepEqual(patched[k], v, `${r.type}.${k} kept`)
        }
        assert.ok(Date.parse(patched.updatedAt) >= Date.parse(created.updatedAt))
        assert.deepEqual(dataOf(await admin.get(`/${r.type}/${created.id}`)), patched)

        const deleted = await admin.del(`/${r.type}/${created.id}`)
        assert.equal(deleted.statusCode, 204)
        assert.equal(deleted.body, '')
        const gone = await admin.get(`/${r.type}/${created.id}`)
        assert.equal(gone.statusCode, 404)
        assert.equal(gone.json().error.code, 'NOT_FOUND')

        const changes = await changeRows(app.database.db, { type: r.changeType, id: created.id })
        assert.deepEqual(changes.map((c) => c.action), ['created', 'updated', 'deleted'])
      })
    }
  })
}
