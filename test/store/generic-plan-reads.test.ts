// PostgreSQL reads whose plan the text fixes run on connections set to generic plans: the
// setting is in effect for the first read on a new connection, and no read is sent on a
// connection still busy setting it (pg warns of that, and pg 9 refuses it). A list page that
// one index serves whatever its values (sorted by update, at most one equality) is such a
// read; a page with two equalities is planned per call on the main pool.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDatabase, testDialects } from '../helpers/test-app.js'

if ((await testDialects()).includes('postgres')) {
  test('postgres: reads on generic plans find the setting made before their first statement', async (t) => {
    const warnings: string[] = []
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`)
    process.on('warning', onWarning)
    t.after(() => process.off('warning', onWarning))
    const database = await testDatabase('postgres', { poolSize: 4 })
    t.after(() => database.destroy())
    // Several at once, so that the pool opens several connections for them.
    const settings = await Promise.all(Array.from({ length: 4 }, () => database.read(`SELECT current_setting('plan_cache_mode')`, [], { generic: true })))
    assert.deepEqual(settings.map((rows) => rows[0][0]), Array(4).fill('force_generic_plan'))
    const [[plain]] = await database.read(`SELECT current_setting('plan_cache_mode')`, [])
    assert.equal(plain, 'auto', 'the main pool keeps PostgreSQL\'s default')
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(warnings.filter((w) => /already executing a query/.test(w)), [])
  })

  test('postgres: a plain keyset page keeps one generic plan; a page with two equalities is planned per call', async (t) => {
    // One connection in the main pool, two at most on generic plans: pages read one after
    // the other reuse one of each, so each connection's prepared statements can be read back.
    const database = await testDatabase('postgres', { poolSize: 1 })
    const app = await buildTestApp({ dialect: 'postgres', database })
    t.after(async () => { await app.close(); await database.destroy() })
    await app.services.store.transaction(async (w) => {
      await w.create('sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'article', name: 'Article' }] })
      for (let i = 0; i < 24; i++) await w.create('entries', { section: 'news', type: 'article', title: `Entry ${i}`, slug: `entry-${i}` })
    })
    const token = await app.issueToken(['entries:read'])
    const walk = async (first: string) => {
      let url: string | null = first
      let pages = 0
      while (url !== null) {
        const res = await app.get(url, token)
        assert.equal(res.statusCode, 200, res.body)
        const next: string | null = res.json().pagination.nextCursor
        url = next === null ? null : `${first}&cursor=${encodeURIComponent(next)}`
        pages++
      }
      return pages
    }
    // Pages after the first share one statement (keyset after the cursor): past PostgreSQL's
    // five custom plans, `auto` would choose for itself.
    assert.equal(await walk('/gatehouse/v1/entries?limit=3'), 8)
    assert.equal(await walk('/gatehouse/v1/entries?limit=3&section=news'), 8)
    // Prepared itself (a read reaches the generic connections only as a named statement).
    const prepared = async (generic: boolean) => new Map((await database.read(
      `SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%FROM "entries" t%ORDER BY%' AND statement NOT LIKE '%pg_prepared_statements%'`, [], { generic },
    )).map(([statement, g, c]) => [String(statement), { generic: Number(g), custom: Number(c), section: /"section" =/.test(String(statement)) }]))
    const onGeneric = [...(await prepared(true)).values()]
    const onMain = [...(await prepared(false)).values()]
    const plainAfter = onGeneric.filter((p) => !p.section && p.generic >= 7)
    assert.equal(plainAfter.length, 1, `the plain page after a cursor, on the generic connection: ${JSON.stringify(onGeneric)}`)
    assert.equal(plainAfter[0].custom, 0)
    assert.deepEqual(onGeneric.filter((p) => p.section), [], 'no page with two equalities on the generic connection')
    const sectionAfter = onMain.filter((p) => p.section && p.generic + p.custom >= 7)
    assert.equal(sectionAfter.length, 1, `the section page after a cursor, on the main pool: ${JSON.stringify(onMain)}`)
    assert.ok(sectionAfter[0].custom >= 5, `planned per call at first: ${JSON.stringify(sectionAfter[0])}`)
    assert.deepEqual(onMain.filter((p) => !p.section), [], 'no plain page on the main pool')
  })
}
