// docs/api.md stays true: its generated reference matches the registry, and every curl
// example in it runs against a live server with the answer it promises.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { allRoutes, END, renderReference, START } from '../../scripts/api-doc.js'
import { buildTestApp } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { readScopes } from '../helpers/scopes.js'
import { runShellBlock } from '../helpers/doc-shell.js'

const doc = readFileSync('docs/api.md', 'utf8')

test('the generated endpoint, scope and error reference in docs/api.md is up to date', async () => {
  const current = doc.slice(doc.indexOf(START), doc.indexOf(END) + END.length)
  assert.equal(current, renderReference(await allRoutes()), 'run `npx tsx scripts/api-doc.ts` to refresh docs/api.md')
})

test('every curl example in docs/api.md works against a live server', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    await seedSmallCatalog(app.services.store)
    await app.app.listen({ host: '127.0.0.1', port: 0 })
    const address = app.app.server.address()
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    const token = await app.issueToken(readScopes)
    const blocks = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).filter((b) => b.trimStart().startsWith('curl'))
    assert.ok(blocks.length >= 8, `expected the curl examples, found ${blocks.length}`)
    for (const block of blocks) {
      const expect = /# expect: (\w+)/.exec(block)?.[1]
      const { stdout } = await runShellBlock(block, { GATEHOUSE_URL: url, GATEHOUSE_TOKEN: token })
      const body = JSON.parse(stdout)
      if (expect) assert.equal(body.error?.code, expect, block)
      else {
        assert.equal(body.ok, true, `${block}\n${stdout.slice(0, 300)}`)
        if (Array.isArray(body.data)) assert.ok(body.data.length > 0, `${block} returned no items`)
      }
    }
  } finally {
    await app.close()
  }
})
