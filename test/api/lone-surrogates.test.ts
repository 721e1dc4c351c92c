// Lone UTF-16 surrogates (`\ud800` without its pair) are not Unicode text. Every write path
// (admin API, NDJSON import, control actions, machine-API bodies) refuses them with a 400
// naming the field; and a stored value that has one (written before this rule) never makes a
// read fail: PostgreSQL's JSON operators used to reject the whole document, so every filtered
// list that scanned past it answered 500.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { sql } from 'kysely'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { importNdjson } from '../../src/loaders/ndjson-import.js'

const ADMIN_TOKEN = 'admin-token-for-surrogate-tests'
const LONE = 'Hel\ud800lo'
const LOW = '\udc00 trailing'

for (const dialect of await testDialects()) {
  test(`${dialect}: every write path refuses lone surrogates with a 400 naming the field`, async (t) => {
    const app = await buildTestApp({ dialect, env: { PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN, PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' } })
    t.after(() => app.close())
    const { ids } = await seedSmallCatalog(app.services.store)
    const admin = (method: 'POST' | 'PATCH', url: string, body: unknown) => app.app.inject({
      method, url: `/gatehouse/admin/v1${url}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: JSON.stringify(body),
    })
    const detail = (res: { body: string }) => JSON.parse(res.body).error.details[0] as { param: string; problem: string }

    // JSON.stringify writes a lone surrogate as the escape \ud800, as an attacker's client would.
    assert.match(JSON.stringify({ title: LONE }), /\\ud800/)
    const created = await admin('POST', '/entries', { section: 'news', type: 'article', title: LONE, slug: 'lone' })
    assert.equal(created.statusCode, 400, created.body)
    assert.deepEqual(detail(created), { param: 'title', problem: 'must not contain lone UTF-16 surrogates (U+D800–U+DFFF without their pair)' })
    const patched = await admin('PATCH', `/entries/${ids.entries}`, { fields: { body: 'ok', extra: { deep: LOW } } })
    assert.equal(patched.statusCode, 400)
    assert.equal(detail(patched).param, 'fields.extra.deep')
    const key = await admin('PATCH', `/entries/${ids.entries}`, { fields: { ['k\udbff']: 1 } })
    assert.equal(key.statusCode, 400)
    assert.equal(detail(key).param, 'fields.(key)')
    const label = await admin('POST', '/credentials', { label: LONE, scopes: ['products:read'] })
    assert.equal(label.statusCode, 400)
    assert.equal(detail(label).param, 'label')
    // A valid pair (an emoji) is text like any other.
    const emoji = await admin('POST', '/entries', { section: 'news', type: 'article', title: 'Hello 😀', slug: 'emoji' })
    assert.equal(emoji.statusCode, 201, emoji.body)

    // Import: the line is rejected naming the field; the other line is imported.
    const ndjson = [
      JSON.stringify({ type: 'tags', record: { group: 'g', title: LONE, slug: 'lone-tag' } }),
      JSON.stringify({ type: 'tags', record: { group: 'g', title: 'Fine', slug: 'fine-tag' } }),
    ].join('\n')
    const summary = await importNdjson(app.services.store, Readable.from([ndjson]))
    assert.equal(summary.imported, 1)
    assert.equal(summary.rejected, 1)
    assert.deepEqual(summary.rejections[0].details?.[0], { param: 'title', problem: 'must not contain lone UTF-16 surrogates (U+D800–U+DFFF without their pair)' })

    // Control actions and other machine-API bodies.
    await app.services.control.policyChanges.byOperator({ handle: 'open', displayName: 'Open', actionPattern: '*', requiresApproval: false }, { type: 'admin', id: 'test' }, null)
    const agent = await app.issueToken(['control:actions:execute', 'syncstate:write'])
    const draft = await app.post('/gatehouse/v1/control/actions/execute', { actionType: 'entry.updateDraft', payload: { entryId: ids.entries, name: 'd', title: LONE } }, agent, { 'idempotency-key': 'k1' })
    assert.equal(draft.statusCode, 400, draft.body)
    assert.equal(draft.json().error.details[0].param, 'payload.title')
    const checkpoint = await app.post('/gatehouse/v1/sync-state/checkpoint', { resourceType: 'products', metadata: { note: LOW } }, agent)
    assert.equal(checkpoint.statusCode, 400)
    assert.equal(checkpoint.json().error.details[0].param, 'metadata.note')

    // Nothing with a lone surrogate was stored.
    const titles = (await app.database.db.selectFrom('entries').select('title').execute()).map((r) => r.title as string)
    assert.ok(titles.every((x) => !/\p{Cs}/u.test(x)), JSON.stringify(titles))
    assert.equal(await app.services.store.get('tags', 999), undefined)
  })

  test(`${dialect}: a stored value with a lone surrogate never makes a filtered list fail`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    const { store } = app.services
    await store.create('sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'article', name: 'Article' }] })
    const bad = await store.create('entries', { section: 'news', type: 'article', title: 'Hello bad', slug: 'bad', fields: { note: 'x' } })
    const good = await store.create('entries', { section: 'news', type: 'article', title: 'Hello good', slug: 'good', fields: { note: 'y', tags: ['a'] } })
    // A row as an older version could have stored it: the escape of a lone surrogate in the document.
    const escaped = JSON.stringify('Hello bad \ud800')
    assert.equal(escaped, '"Hello bad \\ud800"')
    if (dialect === 'postgres') {
      await sql`UPDATE entries SET doc = replace(doc::text, '"Hello bad"', ${escaped})::json WHERE id = ${bad.id}`.execute(app.database.db)
    } else {
      await sql`UPDATE entries SET doc = replace(doc, '"Hello bad"', ${escaped}) WHERE id = ${bad.id}`.execute(app.database.db)
    }
    const token = await app.issueToken(['entries:read'])
    const expected: Record<string, string[]> = {
      'title:~hello': ['bad', 'good'], 'title:Hello*': ['bad', 'good'], 'slug:good': ['good'], 'fields.note:y': ['good'], 'fields.tags:a': ['good'], 'fields.note:~x': ['bad'],
    }
    for (const [filter, slugs] of Object.entries(expected)) {
      const res = await app.get(`/gatehouse/v1/entries?filter=${encodeURIComponent(filter)}`, token)
      assert.equal(res.statusCode, 200, `${filter}: ${res.body}`)
      assert.deepEqual(res.json().data.map((e: { slug: string }) => e.slug).sort(), slugs, filter)
    }
    // The stored record itself reads back (the escape goes out as stored).
    const show = await app.get(`/gatehouse/v1/entries/show?id=${bad.id}`, token)
    assert.equal(show.statusCode, 200, show.body)
    assert.equal(show.json().data.title, 'Hello bad \ud800')
    assert.equal((await store.get('entries', good.id as number))?.title, 'Hello good')
  })
}
