// Hostile query strings across every list and detail endpoint: never a 5xx, and every
// non-2xx answer is a JSON error with a known code.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { scopeCatalog } from '../helpers/scopes.js'
import { errorCatalog } from '../../src/kernel/errors.js'

/** Small deterministic PRNG so a failure can be replayed from its seed. */
function prng(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const HOSTILE = [
  '', ' ', '0', '-1', '201', '1e9', '9007199254740993', 'NaN', 'null', 'undefined', 'true', '[]', '{}', '%00', '\u0000',
  "' OR 1=1 --", '"; DROP TABLE entries; --', '../../etc/passwd', '<script>alert(1)</script>', '${jndi:ldap://x}',
  '~', '*', '**', '\\', '\\,', ':', '::', ',,,', 'a:b:c', 'title:', ':value', 'variants.sku:~%', 'fields.a.b.c.d:1',
  '__proto__:1', 'constructor.prototype:1', 'id:1,id:2', 'title:~_', 'x'.repeat(5000), '😀', '\u202e', 'é', 'ÿ'.repeat(300),
  'Infinity', '-Infinity', '1e400', '0x10', ' 10', '1e2', '2020-13-45T25:61:61Z', '2024-01-01T00:00:00Z', '2024-01-01', 'all', 'live', '-title', 'title', 'updatedAt',
  'eyJ9.abc', 'eyJrIjoxfQ.AAAAAAAAAAAAAAAAAAAAAA', 'a.b', '.', '..', 'id,title,', ',id', 'variants.sku.x', 'fields.__proto__',
]
const PARAMS = [
  'limit', 'cursor', 'updatedSince', 'fields', 'filter', 'status', 'sort', 'q', 'search', 'lowStock', 'lowStockThreshold',
  'lastDays', 'section', 'type', 'volume', 'kind', 'group', 'ownerId', 'fieldId', 'countryCode', 'postalCode', 'sku',
  'productId', 'reference', 'userId', 'planId', 'originLocationId', 'destinationLocationId', 'types', 'id', 'slug',
  'filename', 'handle', 'uid', 'username', 'number', 'unknown', '__proto__', 'constructor', 'limit[]', 'a[b]',
]

const codes = new Set(Object.keys(errorCatalog))

for (const dialect of await testDialects()) {
  const count = dialect === 'sqlite' ? 5000 : 1500
  test(`${dialect}: ${count} hostile query strings never cause a 5xx`, async (t) => {
    const app = await buildTestApp({ dialect, env: { PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true', PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true' } })
    try {
      await seedSmallCatalog(app.services.store)
      const token = await app.issueToken(scopeCatalog.map((s) => s.scope))
      const routes = app.routes.filter((r) => r.method === 'GET' && (r.list || r.key.endsWith('.show')))
      const cursors = [(await app.get('/gatehouse/v1/entries?limit=1', token)).json().pagination.nextCursor ?? 'none']
      const rand = prng(dialect === 'sqlite' ? 42 : 7)
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]
      const randomText = () => Array.from({ length: Math.floor(rand() * 20) }, () => String.fromCharCode(Math.floor(rand() * 0x2fff))).join('')
      let nonOk = 0
      for (let i = 0; i < count; i++) {
        const route = pick(routes)
        // Mostly the route's own parameters (so queries reach the database), sometimes any.
        const own = Object.keys(route.querystring?.properties ?? {})
        const parts: string[] = []
        for (let n = Math.floor(rand() * 3) + 1; n > 0; n--) {
          const value = rand() < 0.7 ? pick(HOSTILE) : rand() < 0.5 ? randomText() : pick(cursors)
          const raw = rand() < 0.1
          const name = rand() < 0.85 && own.length > 0 ? pick(own) : pick(PARAMS)
          parts.push(`${encodeURIComponent(name)}=${raw ? value.replace(/[#&\s]/g, '') : encodeURIComponent(value)}`)
        }
        const url = `/gatehouse/v1${route.path}?${parts.join('&')}`
        const res = await app.app.inject({ url, headers: { authorization: `Bearer ${token}` } })
        assert.ok(res.statusCode < 500, `#${i} ${url} → ${res.statusCode} ${res.body.slice(0, 300)}`)
        if (res.statusCode >= 300) {
          nonOk++
          const body = res.json()
          assert.ok(codes.has(body.error?.code), `#${i} ${url} → unknown error body ${res.body.slice(0, 200)}`)
          assert.equal(typeof body.error.message, 'string')
          assert.equal(typeof body.requestId, 'string')
          assert.ok(!/at .*\.ts:\d+|SELECT |sqlite|postgres/i.test(res.body), `#${i} leaks internals: ${res.body.slice(0, 300)}`)
        } else {
          assert.equal(res.json().ok, true)
        }
      }
      t.diagnostic(`${nonOk} of ${count} answered with an error`)
      assert.ok(nonOk > count / 4 && nonOk < count, "the fuzzer sends mostly bad, some good input")
    } finally {
      await app.close()
    }
  })
}
