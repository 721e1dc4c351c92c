// Filters run in the database and projections shape documents; both must agree with a
// plain scan of the full documents, on SQLite and PostgreSQL. The JavaScript evaluator
// that provider items use (matchesFilter) must select exactly what the SQL selects.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects, type TestApp } from '../helpers/test-app.js'
import { everyPage } from '../helpers/pages.js'
import { matchesFilter, parseFilter } from '../../src/kernel/filter.js'
import { products } from '../../src/resources/commerce.js'
import type { Doc } from '../../src/resources/hooks.js'

async function seedCatalog(app: TestApp): Promise<void> {
  const colors = ['red', 'green', 'blue', 'Red']
  await app.services.store.transaction(async (w) => {
    for (let i = 0; i < 120; i++) {
      const p = await w.create('products', {
        type: i % 3 === 0 ? 'shirt' : 'mug', title: `${i % 2 ? 'Blue' : 'Green'} item ${i}`, slug: `item-${i}`,
        status: i % 10 === 0 ? 'disabled' : 'live', fields: { color: colors[i % 4], tags: i % 5 === 0 ? ['sale', 'new'] : ['new'], rank: i % 7 },
      })
      for (let v = 0; v < (i % 3) + 1; v++) {
        await w.create('variants', {
          productId: p.id, sku: `SKU-${i}-${v}`, title: `V${v}`, price: 10 + (i % 4), stock: (i + v) % 6,
          hasUnlimitedStock: i % 17 === 0 && v === 0, isDefault: v === 0,
        })
      }
    }
  })
}

const fetchAll = (app: TestApp, token: string, query: string): Promise<Doc[]> => everyPage(app, token, `/gatehouse/v1/products?limit=200&${query}`)

/** Reference semantics of one `path:value` expression, evaluated in JS. */
function holds(doc: unknown, path: string[], value: string): boolean {
  if (path.length === 0) {
    if (Array.isArray(doc)) return doc.some((el) => holds(el, [], value))
    const text = typeof doc === 'string' ? doc : JSON.stringify(doc)
    if (doc === undefined || doc === null && !value.startsWith('~')) return value === 'null' && doc === null
    if (value.startsWith('~') || value.includes('*')) {
      const raw = value.startsWith('~') ? value.slice(1) : value
      const body = raw.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')
      return new RegExp(value.startsWith('~') ? body : `^${body}$`, 'i').test(text)
    }
    return text === value
  }
  if (Array.isArray(doc)) return doc.some((el) => holds(el, path, value))
  if (typeof doc !== 'object' || doc === null) return false
  return holds((doc as Doc)[path[0]], path.slice(1), value)
}

const ids = (docs: Doc[]) => docs.map((d) => d.id as number).sort((a, b) => a - b)

for (const dialect of await testDialects()) {
  test(`${dialect}: filters give the same results as a full scan`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      await seedCatalog(app)
      const token = await app.issueToken(['products:read'])
      const all = await fetchAll(app, token, 'status=all')
      assert.equal(all.length, 120)
      const cases = [
        'status:disabled', 'title:~BLUE', 'title:Blue*', 'title:*item 1*', 'totalStock:0', 'hasUnlimitedStock:true',
        'variants.sku:SKU-4-1', 'variants.sku:~-2', 'variants.isAvailable:false', 'fields.color:red', 'fields.color:~red',
        'fields.tags:sale', 'defaultPrice:10', 'fields.rank:3', 'type:mug,totalStock:3', 'title:~item,variants.stock:0',
        'defaultSku:SKU-1*', 'title:nothing-matches',
      ]
      for (const expr of cases) {
        const got = await fetchAll(app, token, `status=all&filter=${encodeURIComponent(expr)}`)
        const want = all.filter((d) => expr.split(',').every((e) => {
          const at = e.indexOf(':')
          return holds(d, e.slice(0, at).split('.'), e.slice(at + 1))
        }))
        assert.deepEqual(ids(got), ids(want), `filter ${expr}`)
        const tests = parseFilter(expr, { schema: products.fullItem, sensitiveKeys: [], sensitiveAllowed: true })
        assert.deepEqual(ids(all.filter((d) => matchesFilter(d, tests))), ids(got), `filter ${expr} evaluated in JavaScript`)
        if (expr !== 'title:nothing-matches') assert.ok(want.length > 0 && want.length < all.length, `filter ${expr} should select some, not all`)
      }
      // Escapes: a comma and a colon inside a value.
      await app.services.store.create('products', { type: 'mug', title: 'Odd, name: yes', slug: 'odd' })
      const odd = await fetchAll(app, token, `filter=${encodeURIComponent('title:Odd\\, name\\: yes')}`)
      assert.deepEqual(odd.map((d) => d.title), ['Odd, name: yes'])
      const escaped = parseFilter('title:Odd\\, name\\: yes', { schema: products.fullItem, sensitiveKeys: [], sensitiveAllowed: true })
      assert.deepEqual([...all, ...odd].filter((d) => matchesFilter(d, escaped)).map((d) => d.title), ['Odd, name: yes'])
    } finally {
      await app.close()
    }
  })

  test(`${dialect}: projections keep exactly the requested paths`, async () => {
    const app = await buildTestApp({ dialect })
    try {
      await seedCatalog(app)
      const token = await app.issueToken(['products:read'])
      const full = await fetchAll(app, token, 'status=all')
      const projected = await fetchAll(app, token, 'status=all&fields=id,title,variants.sku,fields.color')
      assert.equal(projected.length, full.length)
      for (const [i, p] of projected.entries()) {
        const f = full[i]
        assert.deepEqual(p, {
          id: f.id, title: f.title,
          variants: (f.variants as Doc[]).map((v) => ({ sku: v.sku })),
          fields: { color: (f.fields as Doc).color },
        })
      }
      const bad = await app.get('/gatehouse/v1/products?fields=id,nope', token)
      assert.equal(bad.statusCode, 400)
      assert.equal(bad.json().error.details[0].param, 'fields')
      assert.match(bad.json().error.details[0].problem, /unknown field "nope"; valid fields: id, uid/)
      const badFilter = await app.get('/gatehouse/v1/products?filter=nope:1', token)
      assert.equal(badFilter.statusCode, 400)
      assert.equal(badFilter.json().error.details[0].param, 'filter')
      const tooMany = await app.get(`/gatehouse/v1/products?filter=${Array.from({ length: 21 }, () => 'title:a').join(',')}`, token)
      assert.equal(tooMany.statusCode, 400)
    } finally {
      await app.close()
    }
  })
}
