// Keyset pagination over 1,000 records on both databases: each record exactly once when
// nothing changes; with updates between pages nothing is skipped and the newer version
// comes later; cursors are signed and bound to their query.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects, type TestApp } from '../helpers/test-app.js'
import { readListPosition, writeListPosition } from '../../src/kernel/list-position.js'

async function seedEntries(app: TestApp, n: number): Promise<void> {
  await app.services.store.transaction(async (w) => {
    await w.create('sections', { handle: 'blog', name: 'Blog', type: 'channel', entryTypes: [{ handle: 'post', name: 'Post' }] })
    await w.createMany('entries', Array.from({ length: n }, (_, i) => ({
      section: 'blog', type: 'post', title: `Post ${String(i).padStart(4, '0')}`, slug: `post-${i}`, fields: { n: i },
    })))
  })
}

async function walk(app: TestApp, token: string, first: string, between?: (page: number) => Promise<void>) {
  const seen: { id: number; updatedAt: string }[] = []
  let url: string | null = first
  let page = 0
  while (url) {
    const res = await app.get(url, token)
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    seen.push(...body.data.map((d: { id: number; updatedAt: string }) => ({ id: d.id, updatedAt: d.updatedAt })))
    assert.equal(body.pagination.hasMore, body.pagination.nextCursor !== null)
    url = body.pagination.hasMore ? `${first.split('?')[0]}?${new URLSearchParams({ ...Object.fromEntries(new URL(first, 'http://x').searchParams), cursor: body.pagination.nextCursor })}` : null
    if (url && between) await between(page)
    page++
  }
  return seen
}

for (const dialect of await testDialects()) {
  test(`${dialect}: walking cursors over 1,000 records returns each exactly once, in (updatedAt, id) order`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      await seedEntries(app, 1000)
      const token = await app.issueToken(['entries:read'])
      const seen = await walk(app, token, '/gatehouse/v1/entries?limit=37')
      assert.equal(seen.length, 1000)
      assert.equal(new Set(seen.map((s) => s.id)).size, 1000)
      const keys = seen.map((s) => [Date.parse(s.updatedAt), s.id])
      for (let i = 1; i < keys.length; i++) {
        assert.ok(keys[i][0] > keys[i - 1][0] || (keys[i][0] === keys[i - 1][0] && keys[i][1] > keys[i - 1][1]), `order broken at ${i}`)
      }
    } finally {
      await app.close()
    }
  })

  test(`${dialect}: records updated between pages are never skipped; untouched ones come exactly once`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      await seedEntries(app, 1000)
      const token = await app.issueToken(['entries:read'])
      const touched = new Set<number>()
      const seen = await walk(app, token, '/gatehouse/v1/entries?limit=50', async (page) => {
        // Update one record already seen and one not yet seen after every page.
        for (const id of [page * 50 + 1, 1000 - page * 7]) {
          if (id < 1 || id > 1000 || touched.has(id)) continue
          touched.add(id)
          await app.services.store.update('entries', id, { title: `Updated ${id}` })
        }
      })
      const ids = new Set(seen.map((s) => s.id))
      assert.equal(ids.size, 1000, 'every record at least once')
      const counts = new Map<number, number>()
      for (const s of seen) counts.set(s.id, (counts.get(s.id) ?? 0) + 1)
      for (const [id, count] of counts) {
        if (!touched.has(id)) assert.equal(count, 1, `untouched record ${id} seen ${count} times`)
        else assert.ok(count <= 2, `updated record ${id} seen ${count} times`)
      }
      // The last sighting of every updated record carries the new title's timestamp.
      for (const id of touched) {
        const last = seen.filter((s) => s.id === id).pop()
        const current = await app.services.store.get('entries', id)
        assert.equal(last?.updatedAt, current?.updatedAt, `record ${id} ends at its newest version`)
      }
    } finally {
      await app.close()
    }
  })
}

test('a tampered cursor, or a cursor reused with other parameters, is a 400 naming cursor', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    await seedEntries(app, 30)
    const token = await app.issueToken(['entries:read', 'products:read'])
    const first = (await app.get('/gatehouse/v1/entries?limit=10&section=blog', token)).json()
    const cursor: string = first.pagination.nextCursor
    const [body, sig] = cursor.split('.')
    const position = readListPosition(Buffer.from(body, 'base64url').toString())
    assert.ok(position)
    const forged = Buffer.from(writeListPosition({ ...position, i: position.i + 5 })).toString('base64url') + '.' + sig
    for (const [url, why] of [
      [`/gatehouse/v1/entries?limit=10&section=blog&cursor=${forged}`, 'edited payload'],
      [`/gatehouse/v1/entries?limit=10&section=blog&cursor=${cursor.slice(0, -2)}xx`, 'edited signature'],
      [`/gatehouse/v1/entries?limit=10&section=blog&cursor=garbage`, 'garbage'],
      [`/gatehouse/v1/entries?limit=10&section=other&cursor=${cursor}`, 'other section'],
      [`/gatehouse/v1/entries?limit=10&cursor=${cursor}`, 'dropped section'],
      [`/gatehouse/v1/products?cursor=${cursor}`, 'other resource'],
    ]) {
      const res = await app.get(url, token)
      assert.equal(res.statusCode, 400, why)
      assert.equal(res.json().error.code, 'INVALID_REQUEST')
      assert.equal(res.json().error.details[0].param, 'cursor', why)
    }
    // The genuine cursor with the same parameters (another limit is fine) continues.
    const next = await app.get(`/gatehouse/v1/entries?limit=20&section=blog&cursor=${cursor}`, token)
    assert.equal(next.statusCode, 200)
    assert.equal(next.json().data.length, 20)
    assert.equal(next.json().data[0].id, first.data[9].id + 1)
  } finally {
    await app.close()
  }
})

test('a cursor carried to another endpoint is one of another query, in both directions and both formats', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    await seedEntries(app, 30)
    const token = await app.issueToken(['entries:read', 'products:read', 'changes:read'])
    const entries = (await app.get('/gatehouse/v1/entries?limit=10', token)).json().pagination.nextCursor as string
    const feed = (await app.get('/gatehouse/v1/changes?limit=10', token)).json().pagination.nextCursor as string
    // An entries position as releases before wrote it: JSON, same MAC.
    const [body] = entries.split('.')
    const position = readListPosition(Buffer.from(body, 'base64url').toString())
    assert.ok(position)
    const jsonEntries = app.services.cursors.encode({ ...position })
    for (const [url, problem] of [
      [`/gatehouse/v1/entries?limit=10&cursor=${feed}`, 'cursor belongs to a different query; repeat the parameters of the first page'],
      [`/gatehouse/v1/products?limit=10&cursor=${entries}`, 'cursor belongs to a different query; repeat the parameters of the first page'],
      [`/gatehouse/v1/products?limit=10&cursor=${jsonEntries}`, 'cursor belongs to a different query; repeat the parameters of the first page'],
      [`/gatehouse/v1/changes?limit=10&cursor=${entries}`, 'cursor belongs to a different query; repeat the filter of the first page'],
      [`/gatehouse/v1/changes?limit=10&cursor=${jsonEntries}`, 'cursor belongs to a different query; repeat the filter of the first page'],
    ]) {
      const res = await app.get(url, token)
      assert.equal(res.statusCode, 400, url)
      assert.deepEqual(res.json().error.details, [{ param: 'cursor', problem }], url)
    }
    // A position that is not one (signed, so only a server could have written it) is malformed.
    const broken = app.services.cursors.encodeText(`2|x||${position.q}|n5`)
    const res = await app.get(`/gatehouse/v1/entries?limit=10&cursor=${broken}`, token)
    assert.deepEqual(res.json().error.details, [{ param: 'cursor', problem: 'malformed cursor' }])
  } finally {
    await app.close()
  }
})

test('updatedSince puts the list in incremental mode and the cursor keeps its bound', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    await seedEntries(app, 20)
    // Distinct timestamps, so updatedSince splits the list at a known record.
    for (let id = 1; id <= 20; id++) {
      await new Promise((r) => setTimeout(r, 2))
      await app.services.store.update('entries', id, { fields: { n: id, touched: true } })
    }
    const token = await app.issueToken(['entries:read'])
    const full = (await app.get('/gatehouse/v1/entries?limit=200', token)).json()
    assert.equal(full.meta.mode, 'full')
    const since = full.data[10].updatedAt
    const inc = (await app.get(`/gatehouse/v1/entries?limit=3&updatedSince=${encodeURIComponent(since)}`, token)).json()
    assert.equal(inc.meta.mode, 'incremental')
    assert.deepEqual(inc.data.map((d: { id: number }) => d.id), full.data.slice(10, 13).map((d: { id: number }) => d.id))
    const rest = (await app.get(`/gatehouse/v1/entries?limit=200&cursor=${inc.pagination.nextCursor}`, token)).json()
    assert.equal(rest.meta.mode, 'incremental')
    assert.deepEqual(rest.data.map((d: { id: number }) => d.id), full.data.slice(13).map((d: { id: number }) => d.id))
    const bad = await app.get('/gatehouse/v1/entries?updatedSince=yesterday', token)
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.json().error.details[0].param, 'updatedSince')
  } finally {
    await app.close()
  }
})
