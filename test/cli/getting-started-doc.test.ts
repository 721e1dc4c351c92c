// docs/getting-started.md stays true: every curl example runs against a live server holding
// the demo data, and answers what the page promises.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { buildTestApp } from '../helpers/test-app.js'
import { readScopes } from '../helpers/scopes.js'
import { seedDemo } from '../../src/store/demo/demo-data.js'
import { ROOT } from './helpers/cli.js'

const run = promisify(execFile)
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
    const { stdout } = await run('bash', ['-c', block], { cwd: ROOT, env: { ...process.env, GATEHOUSE_URL: url, GATEHOUSE_TOKEN: token } })
    const body = JSON.parse(stdout)
    if (expect) {
      assert.equal(body.error?.code, expect, block)
      continue
    }
    assert.equal(body.ok, true, `${block}\n${stdout.slice(0, 400)}`)
    if (Array.isArray(body.data)) assert.ok(body.data.length > 0, `${block} returned no items`)
  }
})
