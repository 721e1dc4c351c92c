// The feed shows each change as its record is now: the changes of a record deleted since keep
// their action (the log's) and have a null snapshot, and a follower removes the record for
// any item without a snapshot (docs/sync.md). Both ways a page is written (by the database,
// and from rows in JavaScript when `fields` shapes the snapshots) agree. A blank `types` is a
// 400: a cursor keeping no type would answer empty pages for ever.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'

interface Item { position: number; resourceId: number; action: string; snapshot: unknown }

for (const dialect of await testDialects()) {
  test(`${dialect}: changes of a record deleted since have no snapshot, as its delete has none; a blank types is a 400`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    const token = await app.issueToken(['changes:read', 'tags:read'])
    const store = app.services.store
    const kept = await store.create('tags', { group: 'g', title: 'Kept', slug: 'kept' })
    const gone = await store.create('tags', { group: 'g', title: 'Gone', slug: 'gone' })
    await store.update('tags', gone.id as number, { title: 'Gone 2' })
    await store.update('tags', kept.id as number, { title: 'Kept 2' })
    await store.remove('tags', gone.id as number)

    for (const shape of ['', '&fields=title']) {
      const res = await app.get(`/gatehouse/v1/changes?types=tags&after=0${shape}`, token)
      assert.equal(res.statusCode, 200, res.body)
      const items = res.json().data as Item[]
      const of = (id: unknown) => items.filter((i) => i.resourceId === id).map((i) => [i.action, i.snapshot])
      assert.deepEqual(of(gone.id), [['created', null], ['updated', null], ['deleted', null]], `deleted record${shape}`)
      const title = (t: string) => (shape ? { title: t } : { ...(items.find((i) => i.resourceId === kept.id)?.snapshot as object), title: t })
      assert.deepEqual(of(kept.id), [['created', title('Kept 2')], ['updated', title('Kept 2')]], `kept record${shape}`)
    }

    for (const blank of ['%20', ',', '%20,%20']) {
      const res = await app.get(`/gatehouse/v1/changes?types=${blank}`, token)
      assert.equal(res.statusCode, 400, `types=${blank}: ${res.body}`)
      assert.equal(res.json().error.details[0].param, 'types')
      assert.match(res.json().error.details[0].problem, /^names no type; must be one or more of: .*tags/)
    }
  })
}
