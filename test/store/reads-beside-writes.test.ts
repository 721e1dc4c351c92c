// Hot reads never see a write transaction's uncommitted rows, and see them once it commits.
// On SQLite the hot reads use the writing connection whenever it has no transaction open (its
// own commits keep its page cache); while Kysely holds a transaction open across awaits, a read
// there would see that transaction's rows, so it must go to the second connection. Without
// that switch the first list below shows the entry before its commit.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: a list during an open write transaction shows only committed rows`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    const token = await app.issueToken(['entries:read'])
    const titles = async () => {
      const res = await app.get('/gatehouse/v1/entries?limit=200', token)
      assert.equal(res.statusCode, 200, res.body)
      return (res.json().data as { title: string }[]).map((entry) => entry.title).sort()
    }
    await app.services.store.create('sections', { handle: 'blog', name: 'Blog', type: 'channel', entryTypes: [{ handle: 'post', name: 'Post' }] })
    await app.services.store.create('entries', { section: 'blog', type: 'post', title: 'Committed', slug: 'committed' })
    assert.deepEqual(await titles(), ['Committed'])

    let release!: () => void
    const released = new Promise<void>((resolve) => { release = resolve })
    let written!: (id: number) => void
    const created = new Promise<number>((resolve) => { written = resolve })
    const writing = app.services.store.transaction(async (w) => {
      const entry = await w.create('entries', { section: 'blog', type: 'post', title: 'Pending', slug: 'pending' })
      written(entry.id as number)
      await released
    })
    const pendingId = await created
    assert.deepEqual(await titles(), ['Committed'], 'the open transaction\'s row is not listed')
    assert.equal((await app.get(`/gatehouse/v1/entries/show?id=${pendingId}`, token)).statusCode, 404, 'nor shown')
    release()
    await writing
    assert.deepEqual(await titles(), ['Committed', 'Pending'], 'listed once committed')
    const shown = await app.get(`/gatehouse/v1/entries/show?id=${pendingId}`, token)
    assert.equal(shown.statusCode, 200, `and shown: ${shown.body}`)
  })
}
