// Exact filters at a document path are listed from the family's terms (src/store/record-terms.ts)
// in page order. The terms are only a way in: every page must be exactly what the filter
// selects, in keyset order, after creates, updates and deletes, for callers who may not see
// every status, and after an upgrade fills the terms of records stored before they existed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { buildTestApp, testDialects, type TestApp } from '../helpers/test-app.js'
import { everyPage } from '../helpers/pages.js'
import { migrateSchema } from '../../src/store/schema-reconcile.js'
import { allResources } from '../../src/resources/index.js'
import { documentTerms, termOf, termsSignature } from '../../src/store/record-terms.js'
import type { Doc } from '../../src/resources/hooks.js'

/** Every page of an entries list, `limit` at a time. */
const walk = (app: TestApp, token: string, query: string, limit = 3): Promise<Doc[]> => everyPage(app, token, `/gatehouse/v1/entries?limit=${limit}&${query}`)

const ids = (docs: Doc[]) => docs.map((d) => d.id)
const filterQuery = (expr: string) => `filter=${encodeURIComponent(expr)}`

/** The fields of entry i: tag ids (some strings, some numbers, some repeated), a colour, nested values. */
function fieldsOf(i: number): Doc {
  return {
    tagIds: i % 4 === 0 ? [7, 7, i % 3] : i % 4 === 1 ? ['7', i % 5] : [i % 6],
    colour: i % 3 === 0 ? 'red' : i % 3 === 1 ? '"red"' : 'blue',
    meta: { code: i % 5 === 0 ? 'A-1' : 'B-2' },
    // The same term as `a: { b: 5 }` (keys are joined by dots), which only the filter tells apart.
    ...(i % 2 === 0 ? { a: { b: 5 } } : { 'a.b': 5 }),
    long: 'x'.repeat(200),
  }
}

for (const dialect of await testDialects()) {
  test(`${dialect}: exact document-path filters page in keyset order and stay right through writes, visibility and an upgrade`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      const store = app.services.store
      await store.create('sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'article', name: 'Article' }] })
      const created: Doc[] = []
      for (let i = 0; i < 40; i++) {
        created.push(await store.create('entries', { section: 'news', type: 'article', title: `Entry ${i}`, slug: `entry-${i}`, status: i % 7 === 0 ? 'pending' : 'live', fields: fieldsOf(i) }))
      }
      const reader = await app.issueToken(['entries:read'])
      const everything = await app.issueToken(['entries:read', 'entries:read_all_statuses'])

      // Each check walks with its own page size: pages asked for again come from the page cache.
      const expect = async (expr: string, holds: (f: Doc) => boolean, limit = 3) => {
        // The unfiltered list, in the default order, filtered here.
        const docs = (await walk(app, everything, 'status=all', 200)).filter((d) => holds(d.fields as Doc))
        assert.deepEqual(ids(await walk(app, everything, `status=all&${filterQuery(expr)}`, limit)), ids(docs), `${expr}, every status`)
        const live = docs.filter((d) => d.status === 'live')
        assert.deepEqual(ids(await walk(app, reader, filterQuery(expr), limit)), ids(live), `${expr}, a caller who sees live entries only`)
        return docs.length
      }
      const tags = (f: Doc) => f.tagIds as unknown[]
      // `7` matches the number and the string, once per record however often it is held.
      assert.ok(await expect('fields.tagIds:7', (f) => tags(f).some((t) => t === 7 || t === '7')) >= 15)
      assert.ok(await expect('fields.tagIds:2', (f) => tags(f).some((t) => t === 2 || t === '2')) > 0)
      // `red` and `"red"` hold different texts; the quoted form matches the string `red` too.
      assert.ok(await expect('fields.colour:red', (f) => f.colour === 'red') > 0)
      assert.ok(await expect('fields.colour:"red"', (f) => f.colour === 'red' || f.colour === '"red"') > 0)
      assert.ok(await expect('fields.meta.code:A-1', (f) => (f.meta as Doc).code === 'A-1') > 0)
      assert.equal(await expect('fields.a.b:5', (f) => (f.a as Doc | undefined)?.b === 5), 20)
      assert.equal(await expect('fields.tagIds:99', () => false), 0)
      // Too long for a term: read from the documents instead, with the same answer.
      assert.equal(await expect(`fields.long:${'x'.repeat(200)}`, () => true), 40)
      // An incremental sync: only what changed since a moment, in the same order.
      const since = String(created[25].updatedAt)
      const changed = (await walk(app, everything, 'status=all', 200)).filter((d) => String(d.updatedAt) >= since && tags(d.fields as Doc).some((t) => t === 7 || t === '7'))
      assert.deepEqual(ids(await walk(app, everything, `status=all&updatedSince=${encodeURIComponent(since)}&${filterQuery('fields.tagIds:7')}`)), ids(changed))
      assert.ok(changed.length > 0 && changed.length < 15)
      // With a second condition in the same filter.
      await expect('fields.tagIds:7,fields.colour:blue', (f) => tags(f).some((t) => t === 7 || t === '7') && f.colour === 'blue')

      // Writes: a record that loses the value leaves the list, one that gains it joins it at
      // the end (oldest first, the default order), a deleted one is gone, nothing is listed twice.
      const [loses, gains, goes] = [created[4], created[2], created[8]]
      await store.update('entries', loses.id as number, { fields: { ...fieldsOf(4), tagIds: [1] } })
      await store.update('entries', gains.id as number, { fields: { ...fieldsOf(2), tagIds: [7, '7'] } })
      await store.remove('entries', goes.id as number)
      const after = await walk(app, everything, `status=all&${filterQuery('fields.tagIds:7')}`)
      assert.equal(after.at(-1)?.id, gains.id)
      assert.ok(!after.some((d) => d.id === loses.id || d.id === goes.id))
      assert.equal(new Set(after.map((d) => d.id)).size, after.length)
      await expect('fields.tagIds:7', (f) => tags(f).some((t) => t === 7 || t === '7'), 4)
      const { rows: goneTerms } = await sql<{ n: number }>`SELECT count(*) AS n FROM entries_terms WHERE id = ${goes.id as number}`.execute(app.database.db)
      assert.equal(Number(goneTerms[0].n), 0, 'a deleted record leaves no terms')

      // An upgrade: records stored before the terms existed get them from their documents.
      await sql.raw('DROP TABLE entries_terms').execute(app.database.db)
      const report = await migrateSchema(app.database, allResources)
      const step = report.schemaSteps.find((s) => s.target === 'entries_terms')
      assert.equal(step?.kind, 'create-terms')
      assert.equal(step?.rowsFilled, 39, 'every remaining entry has terms')
      assert.ok(await expect('fields.tagIds:7', (f) => tags(f).some((t) => t === 7 || t === '7'), 5) >= 15)
      assert.ok(await expect('fields.meta.code:A-1', (f) => (f.meta as Doc).code === 'A-1', 5) > 0)

      // Terms made by other rules (another version, a column added or dropped) are rebuilt:
      // here one record lost its terms, and the index named after the rules is gone.
      const signed = (await app.database.adapter.describeTables(app.database.db, ['entries_terms']))[0].indexes.find((i) => i.name.startsWith('entries_terms_id_'))
      assert.ok(signed, 'the id index is named after the rules')
      await sql.raw(`DROP INDEX "${signed.name}"`).execute(app.database.db)
      await sql`DELETE FROM entries_terms WHERE id = ${created[1].id as number}`.execute(app.database.db)
      const rebuilt = (await migrateSchema(app.database, allResources)).schemaSteps
      assert.deepEqual(rebuilt.map((x) => [x.kind, x.target, x.rowsFilled]), [['rebuild-terms', 'entries_terms', 39]])
      assert.ok(await expect('fields.tagIds:7', (f) => tags(f).some((t) => t === 7 || t === '7'), 6) >= 15)
    } finally {
      await app.close()
    }
  })
}

test('terms: U+0000 is read as U+FFFD (as PostgreSQL reads older rows), over-long terms are left out, and the rules sign the index', () => {
  const entries = allResources.find((r) => r.type === 'entries')
  assert.ok(entries)
  assert.deepEqual(documentTerms(entries, { fields: { note: 'a\u0000b', ['k'.repeat(600)]: 1, n: 7 } }), ['fields.note\u001fa\uFFFDb', 'fields.n\u001f7'])
  assert.equal(termOf(entries, { source: 'doc', path: ['fields', 'note'], op: 'exact', value: 'a\u0000b' }), 'fields.note\u001fa\uFFFDb')
  assert.equal(termOf(entries, { source: 'doc', path: ['fields', 'k'.repeat(600)], op: 'exact', value: '1' }), undefined)
  // A column more or less changes which properties have terms, and so the signature.
  const moreColumns = { ...entries, columns: { ...entries.columns, postDate: { type: 'timestamp' as const } } }
  assert.notEqual(termsSignature(moreColumns), termsSignature(entries))
  assert.deepEqual(documentTerms(moreColumns, { postDate: '2024-01-01T00:00:00.000Z' }), [])
})
