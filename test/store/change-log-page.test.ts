// A change-feed page holds the first `limit` changes of its types after its position, in
// sequence order, whatever the log around them: types dense in the log (PostgreSQL reads the
// next positions of the log once), types rare in it (each type's index range, merged), gaps in
// the sequence wider than a page, the end of the log, and the `updatedSince` and action
// conditions. Each page is compared with the log filtered in JavaScript, on both engines.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { defaultRegistry, type Resource } from '../../src/resources/index.js'
import { readChangePage, readRenderedChangePage, type FeedFamily } from '../../src/store/change-page.js'
import type { ChangeAction } from '../../src/store/change-log.js'
import type { Database } from '../../src/store/database.js'
import { testDatabase, testDialects } from '../helpers/test-app.js'
import { planNodes } from '../helpers/query-plan.js'

interface LogRow { seq: number; type: string; id: number; action: ChangeAction; at: number }

/**
 * The log: a run of entries, a few products among them, a gap of 5,000 positions, then
 * entries and products interleaved, and one order at the end. Times rise with the sequence
 * except a stretch of older ones (an `updatedSince` bound skips them).
 */
function logRows(): LogRow[] {
  const rows: LogRow[] = []
  let seq = 0
  const add = (type: string, id: number, action: ChangeAction = 'updated') => {
    seq += 1
    rows.push({ seq, type, id, action, at: seq >= 100 && seq < 140 ? 1_000 + seq : 1_700_000_000_000 + seq })
  }
  for (let i = 1; i <= 200; i++) add('entries', i, i % 7 === 0 ? 'created' : 'updated')
  for (let i = 1; i <= 3; i++) add('products', i)
  for (let i = 201; i <= 260; i++) add('entries', i)
  seq += 5_000
  for (let i = 1; i <= 120; i++) add(i % 3 === 0 ? 'products' : 'entries', 1_000 + i, i % 5 === 0 ? 'deleted' : 'updated')
  add('orders', 1)
  return rows
}

for (const dialect of await testDialects()) {
  test(`${dialect}: a change-feed page is the log's next changes of its types, dense or rare, across gaps and conditions`, async (t) => {
    const database = await testDatabase(dialect, { poolSize: 2 })
    t.after(() => database.destroy())
    const log = logRows()
    for (let i = 0; i < log.length; i += 100) {
      await database.db.insertInto('change_log').values(log.slice(i, i + 100).map((r) => ({
        seq: r.seq, resource_type: r.type, resource_id: r.id, action: r.action, occurred_at: r.at, updated_at: r.at,
      }))).execute()
    }
    const family = (type: string): FeedFamily => ({ resource: defaultRegistry.byChangeType(type) as Resource, withSensitive: false, visible: [] })

    const typeSets = [['entries', 'products', 'orders'], ['entries'], ['products'], ['orders'], ['products', 'orders']]
    const conditions: { updatedSince?: number; action?: string }[] = [{}, { updatedSince: 1_700_000_000_000 }, { action: 'created' }, { action: 'deleted' }]
    for (const types of typeSets) {
      for (const cond of conditions) {
        const expected = log.filter((r) => types.includes(r.type) && (cond.updatedSince === undefined || r.at >= cond.updatedSince) && (cond.action === undefined || r.action === cond.action))
        for (const limit of [1, 7, 50, 200]) {
          const what = `${types.join(',')} ${JSON.stringify(cond)} limit ${limit}`
          const walked: number[] = []
          for (let after = 0, pages = 0; ; pages++) {
            assert.ok(pages <= expected.length + 1, `${what}: the walk ends`)
            // One more than the page, as listChanges asks, to learn whether there are more.
            const q = { afterSeq: after, limit: limit + 1, ...cond }
            const rows = await readChangePage(database, q, types.map(family))
            const want = expected.filter((r) => r.seq > after).slice(0, limit + 1)
            assert.deepEqual(rows.map((r) => [r.seq, r.resourceType, r.resourceId, r.action]), want.map((r) => [r.seq, r.type, r.id, r.action]), `${what} after ${after}`)
            const rendered = await readRenderedChangePage(database, q, types.map(family), limit)
            assert.deepEqual([rendered?.count, rendered?.lastSeq], [want.length, want.length === 0 ? null : want[Math.min(limit, want.length) - 1].seq], `${what} after ${after}, written by the database`)
            const shown = rows.slice(0, limit)
            walked.push(...shown.map((r) => r.seq))
            if (rows.length <= limit) break
            after = shown[shown.length - 1].seq
          }
          assert.deepEqual(walked, expected.map((r) => r.seq), `${what}: the walk reads every change once, in order`)
        }
      }
    }
    if (dialect === 'postgres') {
      // Which form PostgreSQL ran: how often it started the bounded range of positions (a
      // condition `seq <= …`) and the types' own ranges (`ROW(resource_type, seq) > …`).
      const started = async (types: string[], afterSeq: number) => {
        const sent: { text: string; params: readonly unknown[] }[] = []
        const recording: Database = { ...database, read: (text, params, opts) => { sent.push({ text, params }); return database.read(text, params, opts) } }
        await readChangePage(recording, { afterSeq, limit: 9 }, types.map(family))
        const [[plan]] = await database.read(`EXPLAIN (ANALYZE, FORMAT JSON) ${sent[0].text}`, sent[0].params, { prepare: false }) as [[{ Plan: Record<string, unknown> }[]]]
        // Whatever the scan (the table is small): its conditions, and how often it started.
        const conditions = (n: Record<string, unknown>) => [n['Index Cond'], n['Recheck Cond'], n.Filter].join(' ')
        const loops = (condition: RegExp) => planNodes(plan[0].Plan).filter((n) => n['Relation Name'] === 'change_log' && condition.test(conditions(n))).reduce((sum, n) => sum + Number(n['Actual Loops']), 0)
        return { range: loops(/seq <= /), types: loops(/ROW\(resource_type, seq\) >/) }
      }
      assert.deepEqual(await started(['entries', 'products', 'orders'], 0), { range: 1, types: 0 }, 'a page of types dense in the log: the range alone')
      const rare = await started(['orders'], 0)
      assert.deepEqual(rare, { range: 1, types: 1 }, 'a type rare in the log: the range, then the type\'s own')
    }
    // A position past the end, and one inside the gap.
    assert.deepEqual(await readChangePage(database, { afterSeq: 99_999, limit: 5 }, [family('entries')]), [])
    const afterGap = await readChangePage(database, { afterSeq: 300, limit: 2 }, [family('entries'), family('products')])
    assert.deepEqual(afterGap.map((r) => r.seq), [5_264, 5_265])
  })
}
