// A browser opening the server's address lands on a page that links the ways in (control
// panel, API reference, probes), not a JSON 404; every link on it answers.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'

test('GET / is a small page linking the control panel, the API reference and the probes, each of which answers', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const page = await app.get('/', undefined, { accept: 'text/html,application/xhtml+xml' })
  assert.equal(page.statusCode, 200)
  assert.equal(page.headers['content-type'], 'text/html; charset=utf-8')
  assert.match(String(page.headers['content-security-policy']), /default-src 'none'/)
  assert.equal(page.headers['x-content-type-options'], 'nosniff')
  const links = [...page.body.matchAll(/href="([^"]+)"/g)].map((m) => m[1])
  assert.deepEqual(links, ['/gatehouse/cp', '/gatehouse/docs', '/livez', '/readyz'])
  assert.match(page.body, /<code>\/gatehouse\/v1<\/code>/)
  for (const link of links) {
    const res = await app.get(link)
    // The panel sends a signed-out visitor to its login page.
    assert.ok(res.statusCode === 200 || (res.statusCode === 303 && String(res.headers.location).startsWith('/gatehouse/cp')), `${link}: ${res.statusCode}`)
  }
  // HEAD works as for any GET route; other paths at the root are still a 404.
  assert.equal((await app.app.inject({ method: 'HEAD', url: '/' })).statusCode, 200)
  assert.equal((await app.get('/nothing-here')).statusCode, 404)
})
