// /gatehouse/docs: the API reference page is served without a token, pulls every asset from
// this server (swagger-ui-dist from node_modules, no CDN), and loads the document only with a
// token the reader gives it, so it publishes nothing /openapi.json would not.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { buildTestApp } from '../helpers/test-app.js'

test('the page and its assets are served locally, without a token', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const page = await app.get('/gatehouse/docs')
  assert.equal(page.statusCode, 200)
  assert.equal(page.headers['content-type'], 'text/html; charset=utf-8')
  const csp = String(page.headers['content-security-policy'])
  assert.match(csp, /script-src 'self';/)
  assert.match(csp, /connect-src 'self';/)
  assert.equal(page.headers['cache-control'], 'no-store')
  // Nothing is fetched from another origin.
  assert.doesNotMatch(page.body, /(src|href)="(https?:)?\/\//)
  // The document is not embedded: the page has no paths, scopes or schema names in it.
  assert.doesNotMatch(page.body, /products:read|"paths"|ProductsItem/)

  const refs = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
  assert.deepEqual(refs, ['docs/assets/swagger-ui.css', 'docs/page.css', 'docs/assets/swagger-ui-bundle.js', 'docs/page.js'])
  const expectedType: Record<string, RegExp> = { css: /^text\/css/, js: /^application\/javascript/ }
  for (const ref of refs) {
    const res = await app.get(new URL(ref, 'http://x/gatehouse/docs').pathname)
    assert.equal(res.statusCode, 200, ref)
    assert.match(String(res.headers['content-type']), expectedType[ref.split('.').pop() as string], ref)
    assert.equal(res.headers['x-content-type-options'], 'nosniff')
    if (ref.includes('/assets/')) {
      const file = readFileSync(`node_modules/swagger-ui-dist/${ref.split('/').pop()}`, 'utf8')
      assert.equal(res.body, file, `${ref} is the file from swagger-ui-dist`)
    }
  }
  const script = (await app.get('/gatehouse/docs/page.js')).body
  assert.match(script, /fetch\('v1\/openapi\.json', \{ headers: \{ Authorization: 'Bearer ' \+ token/)
  assert.match(script, /preauthorizeApiKey\('bearerAuth', token\)/)
  assert.doesNotMatch(script, /localStorage|sessionStorage|document\.cookie/, 'the token is kept in memory only')
})

test('only the listed asset files are served', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  for (const url of ['/gatehouse/docs/assets/package.json', '/gatehouse/docs/assets/..%2Fpackage.json', '/gatehouse/docs/assets/swagger-ui.js.map', '/gatehouse/docs/assets/%2e%2e%2f%2e%2e%2fpackage.json']) {
    const res = await app.get(url)
    assert.equal(res.statusCode, 404, url)
    assert.equal(res.json().error.code, 'NOT_FOUND')
  }
  const slash = await app.get('/gatehouse/docs/')
  assert.equal(slash.statusCode, 302)
  assert.equal(slash.headers.location, '/gatehouse/docs')
})
