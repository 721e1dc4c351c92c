// Cursors are signed with SHA3-256 under a key derived from the site secret; cursors signed
// before with HMAC-SHA256 (kept in sync workers' checkpoints) still continue, and a cursor
// signed with any other key, or edited, is refused naming `cursor`. List pages write their
// position without JSON (kernel/list-position.ts); positions written as JSON before, under
// either MAC, still continue a walk.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac, randomBytes } from 'node:crypto'
import { CursorCodec } from '../../src/kernel/cursor.js'
import { ApiError } from '../../src/kernel/errors.js'
import { siteSecret } from '../../src/store/meta.js'
import { buildTestApp } from '../helpers/test-app.js'
import { readListPosition, writeListPosition } from '../../src/kernel/list-position.js'

const hmacSigned = (secret: Buffer, payload: object) => {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url')
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url').slice(0, 22)}`
}

const refusal = (codec: CursorCodec, cursor: string) => {
  try {
    codec.decode(cursor)
  } catch (err) {
    assert.ok(err instanceof ApiError)
    return err.details?.[0]
  }
  assert.fail(`accepted ${cursor}`)
}

test('a cursor round-trips, its MAC is not the HMAC of before, and one signed before still decodes', () => {
  const secret = randomBytes(32)
  const codec = new CursorCodec(secret)
  const cursor = codec.encode({ k: 1764480000123, i: 42, q: 'digest' })
  assert.deepEqual(codec.decode(cursor), { k: 1764480000123, i: 42, q: 'digest' })
  const [body, mac] = cursor.split('.')
  assert.equal(mac.length, 22)
  assert.notEqual(mac, createHmac('sha256', secret).update(body).digest('base64url').slice(0, 22))
  assert.deepEqual(codec.decode(hmacSigned(secret, { k: 5, i: 6, q: 'old' })), { k: 5, i: 6, q: 'old' })
})

test('a cursor signed under another key, in either form, or edited, is refused naming cursor', () => {
  const codec = new CursorCodec(randomBytes(32))
  const other = new CursorCodec(randomBytes(32))
  const genuine = codec.encode({ k: 1, i: 2, q: 'x' })
  const [body, mac] = genuine.split('.')
  const edited = Buffer.from(JSON.stringify({ k: 1, i: 3, q: 'x' })).toString('base64url')
  for (const [cursor, why] of [
    [other.encode({ k: 1, i: 2, q: 'x' }), 'SHA-3 under another key'],
    [hmacSigned(randomBytes(32), { k: 1, i: 2, q: 'x' }), 'HMAC under another key'],
    [`${edited}.${mac}`, 'edited body'],
    [`${body}.${mac.slice(0, -1)}`, 'shortened MAC'],
    [`${body}.`, 'no MAC'],
  ]) {
    assert.deepEqual(refusal(codec, cursor), { param: 'cursor', problem: 'cursor signature does not match; use nextCursor as given' }, why)
  }
})

test('a list cursor signed with HMAC under the site secret continues the walk', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    await app.services.store.transaction(async (w) => {
      await w.create('sections', { handle: 'blog', name: 'Blog', type: 'channel', entryTypes: [{ handle: 'post', name: 'Post' }] })
      await w.createMany('entries', Array.from({ length: 5 }, (_, i) => ({ section: 'blog', type: 'post', title: `Post ${i}`, slug: `post-${i}` })))
    })
    const token = await app.issueToken(['entries:read'])
    const first = (await app.get('/gatehouse/v1/entries?limit=2', token)).json()
    assert.equal(first.pagination.hasMore, true)
    const [body] = (first.pagination.nextCursor as string).split('.')
    const position = readListPosition(Buffer.from(body, 'base64url').toString())
    assert.ok(position)
    // What releases before wrote: the same position as JSON, under HMAC and under SHA-3.
    const old = hmacSigned(await siteSecret(app.services.database.db, 'cursor_secret'), { ...position })
    const jsonSha3 = app.services.cursors.encode({ ...position })
    const fresh = (await app.get(`/gatehouse/v1/entries?limit=2&cursor=${first.pagination.nextCursor}`, token)).json()
    for (const cursor of [old, jsonSha3]) {
      const next = await app.get(`/gatehouse/v1/entries?limit=2&cursor=${cursor}`, token)
      assert.equal(next.statusCode, 200, next.body)
      assert.deepEqual(next.json().data.map((e: { id: number }) => e.id), fresh.data.map((e: { id: number }) => e.id))
    }
  } finally {
    await app.close()
  }
})

test('a list position is written without JSON and read back exactly, text keys with any character included', () => {
  const positions = [
    { k: 1764480000123, i: 42, q: 'abcdefghijklmnop' },
    { k: 1764480000123, i: 42, q: 'abcdefghijklmnop', u: 1764400000000 },
    { k: 19.95, i: 7, q: 'q-_Q' },
    { k: 'Title | with, "quotes" and ünïcode 🎉', i: 3, q: 'x' },
    { k: '', i: 1, q: 'x' },
  ]
  for (const p of positions) {
    const text = writeListPosition(p)
    assert.ok(text.startsWith('2|') && !text.includes('{'), text)
    assert.deepEqual(readListPosition(text), p)
  }
  // The first format, JSON, is still read; anything else is no position.
  assert.deepEqual(readListPosition('{"k":5,"i":6,"q":"old","u":4}'), { k: 5, i: 6, q: 'old', u: 4 })
  for (const bad of ['', '2|', '2|1|', '2|1||q|', '2|x||q|n5', '2|1|y|q|n5', '2|1||q|x5', '2|1||q|nabc', '2|1.5||q|n5', '2|+1||q|n5', '2|1|1e3|q|n5', '2| 1||q|n5', '2|0x10||q|n5', '{"k":5}', '{"k":{},"i":1,"q":"x"}', '{not json', '[1,2]', 'null']) {
    assert.equal(readListPosition(bad), undefined, bad)
  }
})
