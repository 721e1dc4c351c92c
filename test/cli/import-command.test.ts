// `gatehouse import FILE` keeps every good line, names each bad line with its reason, and a
// bad line inside a batch costs only itself.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testDialects } from '../helpers/test-app.js'
import { assertNoInternals, cliDatabase, runCli } from './helpers/cli.js'

const line = (type: string, record: unknown, ref?: string) => JSON.stringify({ type, record, ...(ref ? { ref } : {}) })
const entry = (title: string, slug: string, extra: Record<string, unknown> = {}) =>
  line('entries', { section: 'journal', type: 'note', title, slug, ...extra })

// Line numbers matter: the assertions below name them.
const FILE = [
  /* 1 */ line('sections', { handle: 'journal', name: 'Journal', type: 'channel', entryTypes: [{ handle: 'note', name: 'Note' }] }),
  /* 2 */ line('users', { username: 'writer', email: 'writer@example.com' }, 'writer'),
  /* 3 */ entry('First', 'first', { authorId: { $ref: 'writer' }, fields: { body: 'Hello' } }),
  /* 4 */ entry('Bad slug', 'Not A Slug'),
  /* 5 */ '{"type":"entries","record":{"title":',
  /* 6 */ '',
  /* 7 */ line('widgets', {}),
  /* 8 */ entry('Second', 'second'),
  /* 9 */ entry('Duplicate of first', 'first'),
  /* 10 */ entry('Nowhere', 'nowhere', { section: 'missing' }),
  /* 11 */ entry('Third', 'third'),
  /* 12 */ line('products', { type: 'home', title: 'Mug', slug: 'mug' }, 'mug'),
  /* 13 */ line('variants', { productId: { $ref: 'mug' }, sku: 'MUG-1', title: 'Blue', price: 12.5, stock: 4, isDefault: true }),
  /* 14 */ line('variants', { productId: { $ref: 'cup' }, sku: 'CUP-1', title: 'Red', price: 9, stock: 1 }),
  /* 15 */ line('variants', { productId: { $ref: 'mug' }, sku: 'MUG-2', title: 'Green', price: 13, stock: 6 }),
  /* 16 */ line('variants', { productId: { $ref: 'mug' }, sku: 'MUG-1', title: 'Blue again', price: 12.5, stock: 1 }),
].join('\n') + '\n'

for (const dialect of await testDialects()) {
  test(`${dialect}: import keeps good lines and reports bad ones by line number and reason`, async (t) => {
    const target = await cliDatabase(dialect)
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-import-'))
    t.after(async () => { rmSync(dir, { recursive: true, force: true }); await target.destroy() })
    const file = join(dir, 'records.ndjson')
    writeFileSync(file, FILE)

    // One batch per type run, so the duplicate (line 9) and unknown section (line 10) fail a
    // batch that also holds good lines (8 and 11).
    const res = await runCli(['import', file, '--json', '--batch-size', '100'], { env: { PLUGIN_GATEHOUSE_DATABASE_URL: target.url } })
    assert.equal(res.code, 2, res.stderr)
    assertNoInternals(res.stdout + res.stderr)
    // Progress counts lines against the file's exact line count (the first batch ends at line 2).
    assert.match(res.stderr, /^Importing .*records\.ndjson: 12% \(2\/16 lines, \d+\.\ds\)$/m)
    assert.match(res.stderr, /^Importing .*records\.ndjson: 8 imported, 7 rejected in \d+\.\ds$/m)
    const summary = JSON.parse(res.stdout)
    assert.equal(summary.lines, 16)
    assert.equal(summary.blank, 1)
    assert.equal(summary.imported, 8)
    assert.equal(summary.rejected, 7)
    assert.deepEqual(summary.byType, { sections: 1, users: 1, entries: 3, products: 1, variants: 2 })
    const byLine = Object.fromEntries(summary.rejections.map((r: { line: number; reason: string }) => [r.line, r.reason]))
    assert.deepEqual(Object.keys(byLine).map(Number), [4, 5, 7, 9, 10, 14, 16])
    assert.match(byLine[4], /^slug: /)
    assert.match(byLine[5], /^not valid JSON/)
    assert.match(byLine[7], /^unknown type "widgets"; expected one of .*entries/)
    assert.equal(byLine[9], 'slug: already used by another record')
    assert.equal(byLine[10], 'section: no sections record with handle "missing"')
    assert.match(byLine[14], /^unknown \$ref "cup"/)
    assert.equal(byLine[16], 'sku: already used by another record')

    const database = target.open()
    t.after(() => database.close())
    const { db } = database
    const entries = await db.selectFrom('entries').select(['slug', 'author_id']).orderBy('id').execute()
    assert.deepEqual(entries.map((e) => e.slug), ['first', 'second', 'third'])
    const writer = await db.selectFrom('users').select('id').where('username', '=', 'writer').executeTakeFirstOrThrow()
    assert.equal(Number(entries[0].author_id), Number(writer.id))
    // $ref gave the variants their product's id, and the product's totals follow them.
    const product = await db.selectFrom('products').select(['id', 'doc']).executeTakeFirstOrThrow()
    const doc = typeof product.doc === 'string' ? JSON.parse(product.doc) : product.doc
    assert.equal(doc.totalStock, 10)
    assert.deepEqual(doc.variants.map((v: { sku: string }) => v.sku), ['MUG-1', 'MUG-2'])
    // Each imported record has its change; rejected lines left none behind.
    const changes = await db.selectFrom('change_log').select(['resource_type', 'action']).execute()
    assert.equal(changes.filter((c) => c.action === 'created').length, 8)
  })
}

test('import prints a readable summary and exits 0 when every line is imported', async (t) => {
  const target = await cliDatabase('sqlite')
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-import-'))
  t.after(async () => { rmSync(dir, { recursive: true, force: true }); await target.destroy() })
  const env = { PLUGIN_GATEHOUSE_DATABASE_URL: target.url }
  const good = join(dir, 'good.ndjson')
  writeFileSync(good, [line('tags', { group: 'topics', title: 'One', slug: 'one' }), line('tags', { group: 'topics', title: 'Two', slug: 'two' })].join('\n'))
  const ok = await runCli(['import', good], { env })
  assert.equal(ok.code, 0, ok.stderr)
  assert.match(ok.stdout, /^Imported 2 of 2 records from .*good\.ndjson in \d+\.\ds\n {2}tags: 2\n$/)

  const bad = join(dir, 'bad.ndjson')
  writeFileSync(bad, line('tags', { group: 'topics', title: 'One again', slug: 'one' }) + '\n')
  const partial = await runCli(['import', bad], { env })
  assert.equal(partial.code, 2)
  assert.match(partial.stdout, /Rejected 1 line\(s\):\n {2}line 1 \(tags\): slug: already used by another record\n/)

  const missing = await runCli(['import', join(dir, 'nope.ndjson')], { env })
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /^gatehouse: cannot read .*nope\.ndjson: no such file\n$/)
})
