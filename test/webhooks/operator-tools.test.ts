// The operators' side of the DLQ and probe: the admin API (status, listing, inspection with
// payload, replay) and the `gatehouse webhooks …` CLI on the same database, as a real process
// for the first listing and the probe (whose cooldown another process must then honour), in
// the test process for the rest (test/helpers/cli-in-process.ts: a child process costs about
// 1.5 s of CPU, and these are about the commands' answers, not the process).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { tmpdir } from 'node:os'
import { buildTestApp, testDatabase, type TestApp } from '../helpers/test-app.js'
import { LAUNCHER, NODE_TIERING, launcherEnv } from '../helpers/cli-command.js'
import { runCliInProcess } from '../helpers/cli-in-process.js'
import { startReceiver } from './helpers/receiver.js'

const ADMIN = 'operator-admin-token'

/** `gatehouse <args>` as a real process. */
function gatehouseProcess(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...NODE_TIERING, LAUNCHER, ...args], { cwd: tmpdir(), env: { PATH: process.env.PATH ?? '', ...launcherEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    child.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

/** `gatehouse <args>` in the test process, with only PATH and `env` as its environment. */
const gatehouse = (args: readonly string[], env: Record<string, string>) => runCliInProcess(args, { env: { PATH: process.env.PATH ?? '', ...env } })

async function deadLetters(app: TestApp, n: number) {
  const until = Date.now() + 10_000
  for (;;) {
    const rows = await app.database.db.selectFrom('webhook_deliveries').select(['id', 'status']).where('status', '=', 'failed').orderBy('id').execute()
    if (rows.length === n) return rows.map((r) => Number(r.id))
    if (Date.now() > until) throw new Error('dead letters did not appear')
    await new Promise((r) => setTimeout(r, 25))
  }
}

test('admin API and CLI list, inspect and replay dead letters and run the probe', async () => {
  let status = 503
  const receiver = await startReceiver('/hook', (_r, res) => { res.writeHead(status).end() })
  const database = await testDatabase('sqlite')
  const env = {
    PLUGIN_GATEHOUSE_DATABASE_URL: database.url, PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'ops-secret',
    PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS: '1', PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN, PLUGIN_GATEHOUSE_LOG_LEVEL: 'warn',
  }
  const app = await buildTestApp({ dialect: 'sqlite', database, env, webhookWorker: { pollMs: 20 } })
  const admin = (method: 'GET' | 'POST', url: string, body?: unknown) => app.app.inject({
    method, url: `/gatehouse/admin/v1${url}`,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    payload: body === undefined ? undefined : JSON.stringify(body),
  })
  try {
    const product = await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
    await app.services.store.create('products', { type: 'mug', title: 'Cup', slug: 'cup' })
    const [a, b] = await deadLetters(app, 2)

    // Admin API: status, listing, inspection with the payload, replay rules.
    assert.equal((await app.app.inject({ method: 'GET', url: '/gatehouse/admin/v1/webhooks/dlq' })).statusCode, 401)
    const overview = (await admin('GET', '/webhooks')).json().data
    assert.equal(overview.configured, true)
    assert.equal(overview.target, `http://127.0.0.1:${receiver.port}`)
    assert.equal(overview.queue.deadLetters, 2)
    assert.equal(overview.inProcessWorker, true)
    assert.equal(overview.queue.workers.length, 1)
    assert.equal(JSON.stringify(overview).includes('ops-secret') || JSON.stringify(overview).includes('/hook'), false, 'no secret, no URL path')
    const listed = (await admin('GET', '/webhooks/dlq?limit=1')).json()
    assert.deepEqual(listed.data.map((d: { id: number }) => d.id), [a])
    assert.deepEqual(listed.pagination, { hasMore: true, nextCursor: String(a) })
    assert.deepEqual((await admin('GET', `/webhooks/dlq?cursor=${a}`)).json().data.map((d: { id: number }) => d.id), [b])
    const shown = (await admin('GET', `/webhooks/dlq/${a}`)).json().data
    assert.equal(shown.payload.resourceId, product.id)
    assert.equal(shown.payload.snapshot.title, 'Mug')
    assert.equal(shown.lastStatusCode, 503)
    assert.equal((await admin('GET', '/webhooks/dlq/999')).statusCode, 404)
    assert.equal((await admin('POST', '/webhooks/dlq/replay', {})).json().error.code, 'INVALID_REQUEST')

    // CLI on the same database.
    const list = await gatehouseProcess(['webhooks', 'dlq', 'list', '--json'], env)
    assert.equal(list.code, 0, list.stderr)
    const printed = JSON.parse(list.stdout)
    assert.deepEqual(printed.data.map((d: { id: number; status: string }) => [d.id, d.status]), [[a, 'failed'], [b, 'failed']])
    // --json prints the page as the machine API answers it: {data, pagination}.
    const api = (await app.get('/gatehouse/v1/webhooks/dlq', await app.issueToken(['webhooks:dlq:read']))).json()
    assert.deepEqual(printed, { data: api.data, pagination: api.pagination })
    assert.deepEqual(printed.pagination, { hasMore: false, nextCursor: null })
    const one = JSON.parse((await gatehouse(['webhooks', 'dlq', 'list', '--limit', '1', '--json'], env)).stdout)
    assert.deepEqual(one.data.map((d: { id: number }) => d.id), [a])
    assert.equal(one.pagination.hasMore, true)
    const next = JSON.parse((await gatehouse(['webhooks', 'dlq', 'list', '--limit', '1', '--cursor', one.pagination.nextCursor, '--json'], env)).stdout)
    assert.deepEqual(next.data.map((d: { id: number }) => d.id), [b])
    const table = await gatehouse(['webhooks', 'dlq', 'list', '--status', 'failed'], env)
    assert.match(table.stdout, /^ID\s+STATUS\s+EVENT/)
    assert.match(table.stdout, new RegExp(`product:${product.id} created`))
    const neither = await gatehouse(['webhooks', 'dlq', 'replay'], env)
    assert.equal(neither.code, 1)
    assert.equal(neither.stderr.trim(), 'gatehouse: give either --id N or --all')
    const unknown = await gatehouse(['webhooks', 'dlq', 'replay', '--id', '4242'], env)
    assert.equal(unknown.code, 1)
    assert.equal(unknown.stderr.trim(), 'gatehouse: No dead-letter item with id 4242')

    status = 200
    const replay = await gatehouse(['webhooks', 'dlq', 'replay', '--id', String(a), '--json'], env)
    assert.equal(replay.code, 0, replay.stderr)
    assert.deepEqual(JSON.parse(replay.stdout), { replayed: 1, mode: 'single', ids: [a] })
    assert.deepEqual((await admin('POST', '/webhooks/dlq/replay', { mode: 'all' })).json().data, { replayed: 1, mode: 'all', ids: [b] })
    for (const until = Date.now() + 10_000; ;) {
      const rows = await app.database.db.selectFrom('webhook_deliveries').select('status').execute()
      if (rows.every((r) => r.status === 'delivered')) break
      if (Date.now() > until) throw new Error('replayed items were not delivered')
      await new Promise((r) => setTimeout(r, 25))
    }
    assert.equal(receiver.received.length, 4)
    assert.deepEqual((await admin('GET', '/webhooks/dlq')).json().data, [])

    // Probe from the CLI, then the cooldown holds for the admin API (another process).
    const probe = await gatehouseProcess(['webhooks', 'probe', '--json'], env)
    assert.equal(probe.code, 0, probe.stderr)
    const result = JSON.parse(probe.stdout)
    assert.equal(result.status, 'delivered')
    assert.match(result.triggeredBy, /^cli:/)
    const again = await admin('POST', '/webhooks/probe')
    assert.equal(again.statusCode, 429)
    const cliAgain = await gatehouse(['webhooks', 'probe'], env)
    assert.equal(cliAgain.code, 1)
    assert.match(cliAgain.stderr, /^gatehouse: A probe ran less than five minutes ago; try again in \d+ seconds/)
    assert.equal((await admin('GET', '/webhooks/probe')).json().data.recent[0].probeId, result.probeId)
  } finally {
    await app.close()
    await database.destroy()
    await receiver.close()
  }
})
