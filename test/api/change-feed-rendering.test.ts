// A change-feed page written by the database (PostgreSQL's choice: readRenderedChangePage) is
// the page written from its rows in JavaScript, byte for byte, on both engines: snapshots,
// spliced sensitive parts, records the caller may not see (deletes without a snapshot),
// deletes, millisecond padding and the edges of the time range; outside it the rows are used.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { changePage } from '../../src/operations/list-changes.js'
import type { ReadContext } from '../../src/operations/read-context.js'
import type { Caller } from '../../src/kernel/caller.js'
import type { Database } from '../../src/store/database.js'

const caller = (scopes: string[]): Caller => ({ credentialId: 'rendering', label: 'rendering', source: 'managed', grantedScopes: scopes, scopes: new Set(scopes), boundaries: null })

for (const dialect of await testDialects()) {
  test(`${dialect}: a feed page written by the database equals the page written from its rows`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      const store = app.services.store
      const mug = await store.create('products', { type: 'mug', title: 'Mug "ø" \\ 😀', slug: 'mug' })
      await store.create('orders', { number: 'a'.repeat(32), currency: 'EUR', status: 'pending', email: 'buyer@example.com', customer: { id: null, email: 'buyer@example.com', fullName: 'Bø Yer' } })
      await store.create('orders', { number: 'b'.repeat(32), currency: 'EUR', status: 'pending' })
      await store.create('sections', { handle: 'blog', name: 'Blog', type: 'channel', entryTypes: [{ handle: 'post', name: 'Post' }] })
      await store.create('entries', { section: 'blog', type: 'post', title: 'Pending', slug: 'pending', status: 'pending' })
      await store.create('entries', { section: 'blog', type: 'post', title: 'Live', slug: 'live' })
      const tag = await store.create('tags', { group: 'g', title: 'T', slug: 't' })
      await store.update('products', mug.id as number, { title: 'Mug 2' })
      await store.remove('tags', tag.id as number)
      // Times at the edges of what the database writes, and one needing millisecond padding.
      const db = app.services.database.db
      const seqs = (await sql<{ seq: number }>`SELECT seq FROM change_log ORDER BY seq`.execute(db)).rows.map((r) => Number(r.seq))
      await sql`UPDATE change_log SET occurred_at = 0 WHERE seq = ${seqs[0]}`.execute(db)
      await sql`UPDATE change_log SET updated_at = 1700000000005 WHERE seq = ${seqs[1]}`.execute(db)
      await sql`UPDATE change_log SET occurred_at = 253402300799999 WHERE seq = ${seqs[2]}`.execute(db)

      const statements: string[] = []
      const database: Database = { ...app.services.database, read: (text, params, opts) => { statements.push(text); return app.services.database.read(text, params, opts) } }
      const ctx: ReadContext = { ...app.services, database }
      const rendered = (text: string) => text.includes('"resourceType"')

      const everything = caller(['changes:read', 'products:read', 'orders:read', 'orders:read_sensitive', 'entries:read', 'tags:read'])
      const withoutSensitive = caller(['changes:read', 'products:read', 'orders:read', 'entries:read', 'tags:read'])
      for (const who of [everything, withoutSensitive]) {
        for (const limit of [3, 50]) {
          let cursor: string | undefined
          for (let pages = 0; pages < 10; pages++) {
            statements.length = 0
            const byDatabase = await changePage(ctx, { limit, ...(cursor ? { cursor } : {}) }, who, true)
            assert.ok(statements.some(rendered), 'the page was written by the database')
            const fromRows = await changePage(ctx, { limit, ...(cursor ? { cursor } : {}) }, who, false)
            // (The page from rows carries its items one by one too: compare what is sent.)
            const sent = (r: typeof byDatabase) => ({ rawData: r.rawData, pagination: r.pagination, meta: r.meta })
            assert.deepEqual(sent(byDatabase), sent(fromRows))
            JSON.parse(byDatabase.rawData as string)
            cursor = byDatabase.pagination?.nextCursor ?? undefined
            if (!byDatabase.pagination?.hasMore) break
          }
        }
      }

      const all = JSON.parse((await changePage(ctx, { limit: 50 }, everything, true)).rawData as string)
      assert.equal(all[0].occurredAt, '1970-01-01T00:00:00.000Z')
      assert.equal(all[1].updatedAt, '2023-11-14T22:13:20.005Z')
      assert.equal(all[2].occurredAt, '9999-12-31T23:59:59.999Z')
      assert.equal(all.find((i: { resourceType: string }) => i.resourceType === 'orders').snapshot.email, 'buyer@example.com', 'the sensitive part is spliced in')
      assert.equal(all.find((i: { resourceType: string; snapshot: { title?: string } | null }) => i.resourceType === 'products').snapshot.title, 'Mug 2')
      const pending = all.filter((i: { resourceType: string }) => i.resourceType === 'entries')[0]
      assert.deepEqual([pending.action, pending.snapshot], ['deleted', null], 'a record the caller may not see is a delete without a snapshot')
      const without = JSON.parse((await changePage(ctx, { limit: 50 }, withoutSensitive, true)).rawData as string)
      assert.equal(without.find((i: { resourceType: string }) => i.resourceType === 'orders').snapshot.email, undefined, 'no sensitive part without its scope')

      // Past the year 9999 the database does not write the page: the rows are used.
      await sql`UPDATE change_log SET occurred_at = 253402300800000 WHERE seq = ${seqs[seqs.length - 1]}`.execute(db)
      statements.length = 0
      const late = await changePage(ctx, { limit: 50 }, everything, true)
      assert.equal(statements.length, 2, 'the database declined, then the rows were read')
      assert.deepEqual(late, await changePage(ctx, { limit: 50 }, everything, false))
      assert.equal(JSON.parse(late.rawData as string).at(-1).occurredAt, '+010000-01-01T00:00:00.000Z', 'the tag\'s delete, written from its row')
    } finally {
      await app.close()
    }
  })
}
