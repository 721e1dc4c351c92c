// Concurrent read-modify-write transactions never lose an update: rows a write transaction
// reads are locked on PostgreSQL (the first test fails there without the lock), a product's
// totals are recomputed under its row lock, and on SQLite writes from a second process wait
// for the write lock (BEGIN IMMEDIATE, busy_timeout) instead of failing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDatabase, testDialects } from '../helpers/test-app.js'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { ContentStore } from '../../src/store/content-store.js'
import { defaultRegistry } from '../../src/resources/index.js'

const execFileAsync = promisify(execFile)

for (const dialect of await testDialects()) {
  test(`${dialect}: concurrent stock adjustments and variant updates keep every change`, async () => {
    const database = await testDatabase(dialect, { poolSize: 12 })
    try {
      const store = new ContentStore(database, defaultRegistry)
      const p = await store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
      const a = await store.create('variants', { productId: p.id, sku: 'A', title: 'A', price: 5, stock: 3 })
      const b = await store.create('variants', { productId: p.id, sku: 'B', title: 'B', price: 5, stock: 0 })
      const adjust = (id: number, delta: number) => store.transaction(async (w) => {
        const v = await w.get('variants', id)
        await new Promise((r) => setTimeout(r, 5)) // widen the window between read and write
        await w.update('variants', id, { stock: (v?.stock as number) + delta })
      })
      await Promise.all([
        ...Array.from({ length: 5 }, () => adjust(a.id as number, 10)),
        ...Array.from({ length: 5 }, () => adjust(b.id as number, 7)),
      ])
      assert.equal((await store.get('variants', a.id as number))?.stock, 53)
      assert.equal((await store.get('variants', b.id as number))?.stock, 35)
      const product = await store.get('products', p.id as number)
      assert.equal(product?.totalStock, 88, 'the product total reflects both variants')
      assert.deepEqual((product?.variants as { stock: number }[]).map((v) => v.stock), [53, 35])
    } finally {
      await database.destroy()
    }
  })
}

// A product keeps one default variant when several are made the default at once: on
// PostgreSQL each write read the others before the others committed, and all stayed the
// default (7 of 8 created at once, 6 of 6 patched at once), until such writes took turns.
for (const dialect of await testDialects()) {
  test(`${dialect}: variants made the default at once leave one default`, async () => {
    const database = await testDatabase(dialect, { poolSize: 12 })
    try {
      const store = new ContentStore(database, defaultRegistry)
      const p = await store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
      const defaults = async () => (await Promise.all((await database.db.selectFrom('variants').select('id').execute()).map((r) => store.get('variants', Number(r.id)))))
        .filter((v) => v?.productId === p.id && v?.isDefault === true).length
      await Promise.all(Array.from({ length: 8 }, (_, i) => store.create('variants', { productId: p.id, sku: `D-${i}`, title: `${i}`, price: 1, stock: i, isDefault: true })))
      assert.equal(await defaults(), 1, 'created at once')
      const ids = (await database.db.selectFrom('variants').select('id').execute()).map((r) => Number(r.id))
      await Promise.all(ids.map((id) => store.update('variants', id, { isDefault: true })))
      assert.equal(await defaults(), 1, 'patched at once')
    } finally {
      await database.destroy()
    }
  })
}

test('sqlite: two processes writing the same file wait for each other instead of failing', async () => {
  const database = await testDatabase('sqlite')
  try {
    // The other process writes 40 tags while this one writes 40; better-sqlite3 blocks its
    // own thread while waiting for the lock, so the writers must be separate processes.
    const script = `
      import { openDatabase } from './src/store/database.ts'
      import { ContentStore } from './src/store/content-store.ts'
      import { defaultRegistry } from './src/resources/index.ts'
      const db = openDatabase(process.env.DB_URL)
      const store = new ContentStore(db, defaultRegistry)
      let failed = 0
      for (let i = 0; i < 40; i++) {
        try {
          await store.transaction(async (w) => {
            await w.idsWhere('tags', 'group', 'g')
            await new Promise((r) => setTimeout(r, 3))
            await w.create('tags', { group: 'other', title: 'O' + i, slug: 'o-' + i })
          })
        } catch (e) { failed++; console.error(String(e)) }
        await new Promise((r) => setTimeout(r, 2))
      }
      await db.close()
      console.log('failed=' + failed)
    `
    const child = execFileAsync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, DB_URL: database.url } })
    const store = new ContentStore(database, defaultRegistry)
    const errors: string[] = []
    for (let i = 0; i < 40; i++) {
      try {
        // Read, wait, then write: the other process's commit lands in between.
        await store.transaction(async (w) => {
          await w.idsWhere('tags', 'group', 'other')
          await new Promise((r) => setTimeout(r, 3))
          await w.create('tags', { group: 'g', title: `T${i}`, slug: `t-${i}` })
        })
      } catch (e) {
        errors.push(String(e))
      }
      await new Promise((r) => setTimeout(r, 2))
    }
    const { stdout, stderr } = await child
    assert.deepEqual(errors, [])
    assert.equal(stdout.trim(), 'failed=0', stderr)
    const count = await database.db.selectFrom('tags').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()
    assert.equal(Number(count?.n), 80)
  } finally {
    await database.destroy()
  }
})
