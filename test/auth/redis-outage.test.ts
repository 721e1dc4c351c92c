// Redis is a shared counter, not a dependency of serving. With rate limiting on and Redis
// gone, requests are answered at once with per-process limits, readiness says degraded and
// the rate_limit_store incident opens; once Redis is back the shared counters are used
// again, without a restart. Keys carry PLUGIN_GATEHOUSE_REDIS_PREFIX. The test runs a Redis
// of its own on a free port.
// npm test: timing (answers at once while Redis is away, recovery within seconds)
// npm test: waits (mostly waiting, little CPU: runs in the waiting lane beside the other groups)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { Redis } from 'ioredis'
import { buildTestApp, testDatabase, type TestApp } from '../helpers/test-app.js'
import { freePort } from '../helpers/free-port.js'
import { clearOfRateWindowEnd } from '../helpers/rate-window.js'

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], { stdio: 'ignore' })
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 200, retryStrategy: () => null })
  probe.on('error', () => {})
  try {
    for (let i = 0; i < 100; i++) {
      try {
        await probe.connect()
        if ((await probe.ping()) === 'PONG') return child
      } catch {
        await new Promise((r) => setTimeout(r, 50))
      }
    }
    throw new Error(`redis-server did not start on port ${port}`)
  } finally {
    probe.disconnect()
  }
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

const timed = async (app: TestApp, url: string, token: string) => {
  const started = performance.now()
  const res = await app.get(url, token)
  return { res, ms: performance.now() - started }
}

const checkOf = (res: { json(): { data: { checks: { name: string; status: string; message: string }[] } } }, name: string) =>
  res.json().data.checks.find((c) => c.name === name)

test('Redis down: per-process limits at once, readiness degraded and an incident; Redis back: shared counters again; keys carry the prefix', async (t) => {
  const port = await freePort()
  let redis = await startRedis(port)
  t.after(() => stopRedis(redis))
  const url = `redis://127.0.0.1:${port}`
  const database = await testDatabase('sqlite')
  const env = { PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '8', PLUGIN_GATEHOUSE_REDIS_URL: url, PLUGIN_GATEHOUSE_REDIS_PREFIX: 'site-a:', PLUGIN_GATEHOUSE_INCIDENT_WINDOW_SECONDS: '60' }
  const app = await buildTestApp({ dialect: 'sqlite', database, env })
  // Another deployment on the same Redis (and, to make the point, the same credentials).
  const other = await buildTestApp({ dialect: 'sqlite', database, env: { ...env, PLUGIN_GATEHOUSE_REDIS_PREFIX: 'site-b:' } })
  t.after(async () => { await app.close(); await other.close(); await database.destroy() })
  const token = await app.issueToken(['auth:read', 'readiness:read', 'incidents:read'])
  const inspect = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0, retryStrategy: () => null })
  inspect.on('error', () => {})
  t.after(() => inspect.disconnect())

  // Up: counters live in Redis under each deployment's prefix, budgets apart.
  const first = await timed(app, '/gatehouse/v1/auth/whoami', token)
  assert.equal(first.res.statusCode, 200)
  assert.equal(first.res.headers['x-ratelimit-remaining'], '7')
  assert.equal((await other.get('/gatehouse/v1/auth/whoami', token)).headers['x-ratelimit-remaining'], '7', 'site-b counts its own budget')
  const keys = (await inspect.keys('*')).sort()
  assert.equal(keys.length, 2, JSON.stringify(keys))
  assert.match(keys[0], /^site-a:rl:\d+:cred:cred_/)
  assert.match(keys[1], /^site-b:rl:\d+:cred:cred_/)
  assert.equal(checkOf(await app.get('/gatehouse/v1/readiness', token), 'rateLimitStore')?.status, 'ok')

  // Down: every request is answered at once, still limited, counted in this process.
  await clearOfRateWindowEnd(15_000)
  await stopRedis(redis)
  const down: { status: number; ms: number; remaining: unknown }[] = []
  for (let i = 0; i < 9; i++) {
    const { res, ms } = await timed(app, '/gatehouse/v1/auth/whoami', token)
    down.push({ status: res.statusCode, ms, remaining: res.headers['x-ratelimit-remaining'] })
  }
  assert.ok(down.every((d) => d.ms < 300), `answered in ${down.map((d) => Math.round(d.ms)).join(', ')} ms`)
  assert.deepEqual(down.map((d) => d.status), [200, 200, 200, 200, 200, 200, 200, 200, 429], 'the per-process budget still applies')
  const readiness = await timed(app, '/gatehouse/v1/readiness?', token)
  assert.equal(readiness.res.statusCode, 429, 'readiness is rate limited like any request')
  const ops = await other.issueToken(['readiness:read', 'incidents:read'])
  const ready = await timed(other, '/gatehouse/v1/readiness', ops)
  assert.ok(ready.ms < 1000, `readiness answered in ${Math.round(ready.ms)} ms while Redis is down`)
  assert.equal(ready.res.statusCode, 200)
  assert.equal(ready.res.json().data.verdict, 'degraded')
  const store = checkOf(ready.res, 'rateLimitStore')
  assert.equal(store?.status, 'warn')
  assert.match(store?.message ?? '', /counting rate limits per process/)
  const incidents = (await app.get('/gatehouse/v1/incidents?status=open', await other.issueToken(['incidents:read']))).json()
  assert.ok(incidents.data?.some((i: { category: string }) => i.category === 'rate_limit_store') ?? false, JSON.stringify(incidents))

  // Back: the shared counters are used again, without a restart.
  redis = await startRedis(port)
  const until = Date.now() + 8000
  while (other.services.rateLimiter.health().degraded && Date.now() < until) await new Promise((r) => setTimeout(r, 100))
  const again = await other.get('/gatehouse/v1/readiness', ops)
  assert.equal(checkOf(again, 'rateLimitStore')?.status, 'ok', JSON.stringify(checkOf(again, 'rateLimitStore')))
  assert.deepEqual(await inspect.ping().catch(() => inspect.connect().then(() => inspect.ping())), 'PONG')
  assert.ok((await inspect.keys('site-b:*')).length > 0, 'counting in Redis again')
})
