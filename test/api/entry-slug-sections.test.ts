// Entry slugs are unique per section, so `/entries/show?slug=` takes an optional `section`;
// without it, a slug matching entries in several sections is a 409 naming the sections
// (never the first one silently). Only entries the caller may see count.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: /entries/show by slug picks by section and refuses to guess`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    const { store } = app.services
    for (const handle of ['homepage', 'pages', 'news']) {
      await store.create('sections', { handle, name: handle, type: 'channel', entryTypes: [{ handle: 'page', name: 'Page' }] })
    }
    const home = await store.create('entries', { section: 'homepage', type: 'page', title: 'Home', slug: 'home' })
    const pagesHome = await store.create('entries', { section: 'pages', type: 'page', title: 'Home (pages)', slug: 'home' })
    await store.create('entries', { section: 'news', type: 'page', title: 'Home (draft)', slug: 'home', status: 'pending' })
    await store.create('entries', { section: 'news', type: 'page', title: 'About', slug: 'about' })
    const token = await app.issueToken(['entries:read'])
    const show = (q: string, tk = token) => app.get(`/gatehouse/v1/entries/show?${q}`, tk)

    const ambiguous = await show('slug=home')
    assert.equal(ambiguous.statusCode, 409)
    const error = ambiguous.json().error
    assert.equal(error.code, 'CONFLICT')
    assert.equal(error.message, `slug=home matches 2 entries: section homepage (id ${home.id}); section pages (id ${pagesHome.id}); add section, or use id`)
    assert.deepEqual(error.details, [{ param: 'section', problem: 'one of: homepage, pages' }])

    assert.equal((await show('slug=home&section=pages')).json().data.id, pagesHome.id)
    assert.equal((await show('slug=home&section=homepage')).json().data.id, home.id)
    assert.equal((await show('slug=about')).json().data.title, 'About')
    assert.equal((await show('slug=home&section=blog')).statusCode, 404)
    assert.equal((await show(`id=${home.id}`)).json().data.slug, 'home')

    // The pending one counts for a caller who may see it.
    const all = await app.issueToken(['entries:read', 'entries:read_all_statuses'])
    assert.deepEqual((await show('slug=home', all)).json().error.details, [{ param: 'section', problem: 'one of: homepage, pages, news' }])
    assert.equal((await show('slug=home&section=news', all)).json().data.status, 'pending')
  })
}
