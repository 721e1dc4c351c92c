// docs/getting-started.md stays true: every curl example runs against a live server holding
// the demo data, and answers what the page promises.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildTestApp, testDatabase } from '../helpers/test-app.js'
import { readScopes } from '../helpers/scopes.js'
import { DEMO_BASE_COUNTS, demoEstimate, seedDemo } from '../../src/loaders/demo/demo-data.js'
import { ContentStore } from '../../src/store/content-store.js'
import { defaultRegistry } from '../../src/resources/index.js'
import { ROOT } from './helpers/cli.js'
import { runShellBlock } from '../helpers/doc-shell.js'

const doc = readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8')

test('every curl example in docs/getting-started.md works against the demo data', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  await seedDemo(app.services.store, { scale: 1 })
  await app.app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.app.server.address()
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  const token = await app.issueToken(readScopes)

  const blocks = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1])
    .filter((b) => b.includes('curl ') && b.includes('$GATEHOUSE_TOKEN') && !b.trimStart().startsWith('export'))
  assert.ok(blocks.length >= 9, `expected the curl examples, found ${blocks.length}`)
  for (const block of blocks) {
    const expect = /# expect: (\w+)/.exec(block)?.[1]
    const { stdout } = await runShellBlock(block, { GATEHOUSE_URL: url, GATEHOUSE_TOKEN: token }, ROOT)
    const body = JSON.parse(stdout)
    if (expect) {
      assert.equal(body.error?.code, expect, block)
      continue
    }
    assert.equal(body.ok, true, `${block}\n${stdout.slice(0, 400)}`)
    if (Array.isArray(body.data)) assert.ok(body.data.length > 0, `${block} returned no items`)
  }
})

test('the demo data figures in docs/getting-started.md are what seeding produces', async (t) => {
  const database = await testDatabase('sqlite')
  t.after(() => database.destroy())
  const { counts, total } = await seedDemo(new ContentStore(database, defaultRegistry), { scale: 1 })
  const table = doc.slice(doc.indexOf('| family | records | linked to |'), doc.indexOf('`--scale N` multiplies'))
  const cell = (family: string) => {
    const row = table.split('\n').find((r) => r.startsWith(`| ${family} |`))
    assert.ok(row, `the demo table has a row for ${family}`)
    return row.split('|')[2].trim()
  }
  const first = (text: string) => Number(/[\d,]+/.exec(text)?.[0].replace(/,/g, ''))
  const exact: [string, string][] = [
    ['sections', 'sections'], ['entries', 'entries'], ['content blocks', 'content-blocks'], ['assets', 'assets'],
    ['categories', 'categories'], ['tags', 'tags'], ['global sets', 'global-sets'], ['users', 'users'],
    ['products', 'products'], ['subscriptions', 'subscriptions'], ['donations', 'donations'], ['orders', 'orders'],
    ['addresses', 'addresses'],
  ]
  for (const [family, type] of exact) assert.equal(first(cell(family)), counts[type], `${family}: ${cell(family)}`)
  assert.equal(cell('locations, transfers'), `${counts.locations} locations, ${counts.transfers} transfers`)
  assert.match(cell('products'), new RegExp(`\\(${counts.variants} variants\\)$`))
  // Everything in the table is everything seeded.
  assert.equal(Object.keys(counts).length, exact.length + 3)
  // The first-run text rounds the total; the sample output (checked against `start` itself in
  // start-command.test.ts) gives it exactly.
  assert.match(doc, new RegExp(`loads the demo site \\(about ${(Math.round(total / 1000) * 1000).toLocaleString('en-US')} linked records`))
  assert.match(doc, new RegExp(`Loading demo data: ${total.toLocaleString('en-US')} records in`))
  // --scale 100, from the declared base counts and the generator's averages.
  const s100 = (family: keyof typeof DEMO_BASE_COUNTS) => (DEMO_BASE_COUNTS[family] * 100).toLocaleString('en-US')
  assert.match(doc, new RegExp(`\`--scale 100\` gives ${s100('entries')} entries and ${s100('products')} products \\(about ${(counts.variants / counts.products * 20_000).toLocaleString('en-US', { maximumSignificantDigits: 1 })} variants\\), some ${(Math.round(demoEstimate(100) / 100_000) * 100_000).toLocaleString('en-US')}\\s+records in all`))
})
