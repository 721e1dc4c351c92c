// `gatehouse records list|show` run the machine API's list and detail operations: the same
// page as GET /gatehouse/v1/<type> for the same parameters, paging that continues with
// --cursor, and errors that name the flag typed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { assertNoInternals, runCli } from './helpers/cli.js'

for (const dialect of await testDialects()) {
  test(`${dialect}: records list and show answer as the machine API does`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    await seedSmallCatalog(app.services.store)
    // The CLI must open the test's own PostgreSQL schema, as cliDatabase() URLs do.
    const url = app.database.schema ? `${app.database.url}${app.database.url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${app.database.schema}`)}` : app.database.url
    const env = { PLUGIN_GATEHOUSE_DATABASE_URL: url }
    const token = await app.issueToken(['products:read', 'entries:read'])

    const api = (await app.get('/gatehouse/v1/products?limit=1&fields=id,title', token)).json()
    const first = await runCli(['records', 'list', 'products', '--limit', '1', '--fields', 'id,title', '--json'], { env })
    assert.equal(first.code, 0, first.stderr)
    const page = JSON.parse(first.stdout)
    assert.deepEqual(page.data, api.data)
    assert.equal(page.pagination.hasMore, api.pagination.hasMore)
    if (page.pagination.hasMore) {
      const second = JSON.parse((await runCli(['records', 'list', 'products', '--limit', '1', '--fields', 'id,title', '--cursor', page.pagination.nextCursor, '--json'], { env })).stdout)
      const apiSecond = (await app.get(`/gatehouse/v1/products?limit=1&fields=id,title&cursor=${encodeURIComponent(api.pagination.nextCursor)}`, token)).json()
      assert.deepEqual(second.data, apiSecond.data)
    }
    const filtered = JSON.parse((await runCli(['records', 'list', 'entries', '--filter', 'title:~hello', '--json'], { env })).stdout)
    assert.deepEqual(filtered.data.map((e: { slug: string }) => e.slug), ['hello-world'])

    const shown = await runCli(['records', 'show', 'entries', '--slug', 'hello-world', '--json'], { env })
    assert.equal(shown.code, 0, shown.stderr)
    assert.deepEqual(JSON.parse(shown.stdout), (await app.get('/gatehouse/v1/entries/show?slug=hello-world', token)).json().data)
    const table = await runCli(['records', 'list', 'entries'], { env })
    assert.match(table.stdout, /^ID\s+UPDATED\s+SUMMARY\n/)
    assert.match(table.stdout, /Hello world/)

    // Errors name the flag typed and list allowed values; never a stack or SQL.
    const cases: [string[], RegExp][] = [
      [['records', 'list', 'products', '--limit', '900'], /invalid --limit/],
      [['records', 'list', 'products', '--sort', 'price'], /invalid --sort: must be one of: updatedAt, -updatedAt, createdAt, -createdAt, title, -title/],
      [['records', 'list', 'products', '--low-stock-threshold', 'x'], /invalid --low-stock-threshold/],
      [['records', 'list', 'products', '--bogus', '1'], /--bogus: not an option of products; valid: .*--filter/],
      // Refused by the list itself (not by the parameters' schema): still the flag as typed.
      [['records', 'list', 'products', '--fields', 'id,bogus'], /^gatehouse: invalid --fields: unknown field "bogus"/],
      [['records', 'list', 'widgets'], /unknown record type "widgets"; valid: products, /],
      [['records', 'show', 'products'], /give exactly one of --id, --slug/],
      [['records', 'show', 'products', '--id', '999999'], /No products record matches id=999999/],
    ]
    for (const [args, message] of cases) {
      const res = await runCli(args, { env })
      assert.notEqual(res.code, 0, args.join(' '))
      assert.match(res.stderr, message)
      assertNoInternals(res.stderr)
    }
  })
}

test('records list --fields without updatedAt prints no UPDATED column', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  await seedSmallCatalog(app.services.store)
  const env = { PLUGIN_GATEHOUSE_DATABASE_URL: app.database.url }
  const narrow = await runCli(['records', 'list', 'products', '--fields', 'id,title'], { env })
  assert.equal(narrow.code, 0, narrow.stderr)
  assert.match(narrow.stdout, /^ID\s+SUMMARY\n/)
  assert.doesNotMatch(narrow.stdout, /UPDATED/)
  assert.match(narrow.stdout, /Blue shirt/)
  const whole = await runCli(['records', 'list', 'products', '--fields', 'id,title,updatedAt'], { env })
  assert.match(whole.stdout, /^ID\s+UPDATED\s+SUMMARY\n\d+\s+\d{4}-\d\d-\d\dT/)
})
