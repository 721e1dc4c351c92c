// Rate limits per credential (and per address for failed authentication), with headers on
// every answer, 429 with Retry-After, and counters shared through Redis across processes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Redis } from 'ioredis'
import { buildTestApp, testDatabase } from '../helpers/test-app.js'
import { clearOfRateWindowEnd } from '../helpers/rate-window.js'
import { until } from '../helpers/until.js'

const REDIS_URL = process.env.GATEHOUSE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

async function redisReachable(): Promise<boolean> {
  const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 1000 })
  r.on('error', () => {})
  try {
    await r.connect()
    return (await r.ping()) === 'PONG'
  } catch {
    if (process.env.GATEHOUSE_REQUIRE_POSTGRES === '1') throw new Error(`Redis required in CI but unreachable at ${REDIS_URL}`)
    return false
  } finally {
    r.disconnect()
  }
}

test('per-credential limit: headers count down, then 429 with Retry-After; other credentials unaffected', async () => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '5' } })
  try {
    const a = await app.issueToken(['auth:read'])
    const b = await app.issueToken(['auth:read'])
    await clearOfRateWindowEnd()
    const remaining: string[] = []
    for (let i = 0; i < 5; i++) {
      const res = await app.get('/gatehouse/v1/auth/whoami', a)
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['x-ratelimit-limit'], '5')
      remaining.push(String(res.headers['x-ratelimit-remaining']))
      assert.ok(Number(res.headers['x-ratelimit-reset']) >= 1 && Number(res.headers['x-ratelimit-reset']) <= 60)
    }
    assert.deepEqual(remaining, ['4', '3', '2', '1', '0'])
    const limited = await app.get('/gatehouse/v1/auth/whoami', a)
    assert.equal(limited.statusCode, 429)
    assert.equal(limited.json().error.code, 'RATE_LIMIT_EXCEEDED')
    assert.ok(Number(limited.headers['retry-after']) >= 1)
    assert.equal(limited.headers['x-ratelimit-remaining'], '0')
    assert.equal((await app.get('/gatehouse/v1/auth/whoami', b)).statusCode, 200)
  } finally {
    await app.close()
  }
})

test('failed authentication is limited per client address', async () => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '3' } })
  try {
    await clearOfRateWindowEnd()
    const codes: number[] = []
    const remaining: unknown[] = []
    for (let i = 0; i < 5; i++) {
      const res = await app.get('/gatehouse/v1/auth/whoami', `gth_guess${i}`)
      codes.push(res.statusCode)
      remaining.push(res.headers['x-ratelimit-remaining'])
      assert.equal(res.headers['x-ratelimit-limit'], '3', 'refused answers carry the address budget too')
    }
    assert.deepEqual(codes, [401, 401, 401, 429, 429])
    assert.deepEqual(remaining, ['2', '1', '0', '0', '0'])
  } finally {
    await app.close()
  }
})

test('with PLUGIN_GATEHOUSE_REDIS_URL two API processes share one budget', async (t) => {
  if (!(await redisReachable())) {
    t.diagnostic('Redis not reachable; run scripts/setup-services.sh')
    assert.fail('Redis is needed for this test (scripts/setup-services.sh starts it)')
  }
  const database = await testDatabase('sqlite')
  const env = { PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '4', PLUGIN_GATEHOUSE_REDIS_URL: REDIS_URL }
  const one = await buildTestApp({ dialect: 'sqlite', database, env })
  const two = await buildTestApp({ dialect: 'sqlite', database, env })
  try {
    const token = await one.issueToken(['auth:read'])
    // Each process connects to Redis on its first counted request and counts in memory until
    // it is connected (on a loaded CI machine, this test's first requests were counted so):
    // one request each with another credential, then both connected, before the budget is spent.
    const warm = await one.issueToken(['auth:read'])
    for (const app of [one, two]) assert.equal((await app.get('/gatehouse/v1/auth/whoami', warm)).statusCode, 200)
    await until(() => [one, two].every((app) => !app.services.rateLimiter.health().degraded), 'both processes to count in Redis')
    await clearOfRateWindowEnd()
    const codes: number[] = []
    for (let i = 0; i < 6; i++) codes.push((await (i % 2 ? two : one).get('/gatehouse/v1/auth/whoami', token)).statusCode)
    assert.deepEqual(codes, [200, 200, 200, 200, 429, 429])
  } finally {
    await one.close()
    await two.close()
    await database.destroy()
  }
})
