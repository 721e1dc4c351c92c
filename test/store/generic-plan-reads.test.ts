// PostgreSQL reads whose plan the text fixes run on connections set to generic plans: the
// setting is in effect for the first read on a new connection, and no read is sent on a
// connection still busy setting it (pg warns of that, and pg 9 refuses it).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDatabase, testDialects } from '../helpers/test-app.js'

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
}
