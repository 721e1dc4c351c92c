// A full disk: writes answer 507 STORAGE_FULL (never a 500, never the driver's text), reads go
// on, the cause is logged once, and /readiness, /incidents and the diagnostics bundle show it
// until a write succeeds again. SQLite runs on a small tmpfs this test mounts and fills with a
// ballast file (skipped, saying why, where it cannot mount); PostgreSQL gets its real disk_full
// error (SQLSTATE 53100) from triggers on the tables the writes, the probe and the webhook
// worker's heartbeat touch.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { sql } from 'kysely'
import { pino } from 'pino'
import { buildApp, type GatehouseApp } from '../../src/compose/app.js'
import { openDatabase } from '../../src/store/database.js'
import { PG_URL, testDatabase, testDialects, testSettings } from '../helpers/test-app.js'

const ADMIN = 'admin-token-for-storage-full-tests'
const BIG = 'x'.repeat(200_000)

interface Logged { readonly msg: string; readonly level: number; readonly code?: string }

/** The app with a logger whose lines the test reads. */
async function appOn(url: string, schema?: string): Promise<{ app: GatehouseApp; logs: Logged[] }> {
  const logs: Logged[] = []
  const sink = new Writable({ write(chunk, _enc, done) { for (const l of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(l) as Logged); done() } })
  const settings = testSettings({
    PLUGIN_GATEHOUSE_DATABASE_URL: url, PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN,
    // Webhooks configured, so the worker runs (global sets send no events: nothing is delivered).
    PLUGIN_GATEHOUSE_WEBHOOK_URL: 'http://127.0.0.1:9/hook', PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'storage-full-test-secret',
  })
  const database = openDatabase(url, { schema })
  // The in-process webhook worker runs, heartbeating every 100 ms: its failed writes must not repeat the cause in the log.
  const app = await buildApp({ settings, database, logger: pino({ level: 'info' }, sink), webhookWorker: { heartbeatMs: 100, pollMs: 50 } })
  return { app, logs }
}

const write = (app: GatehouseApp, n: number, big = true) => app.app.inject({
  method: 'POST', url: '/gatehouse/admin/v1/global-sets', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
  payload: JSON.stringify({ handle: `set-${n}`, name: `Set ${n}`, fields: big ? { body: BIG } : {} }),
})

async function machine(app: GatehouseApp, token: string, url: string) {
  const res = await app.app.inject({ url, headers: { authorization: `Bearer ${token}` } })
  return { status: res.statusCode, body: res.json() }
}

/** Full, seen, freed, cleared: the behaviour both engines must show. */
async function exercise(app: GatehouseApp, logs: Logged[], fill: () => Promise<void>, free: () => Promise<void>): Promise<void> {
  const { token } = await app.services.credentials.create({ label: 'ops', scopes: ['readiness:read', 'incidents:read', 'diagnostics:read', 'globalsets:read'] })
  assert.equal((await write(app, 0)).statusCode, 201)
  const before = await machine(app, token, '/gatehouse/v1/readiness')
  assert.equal(before.body.data.checks.find((c: { name: string }) => c.name === 'storage').status, 'ok')

  await fill()
  let refused: Awaited<ReturnType<typeof write>> | undefined
  for (let n = 1; n <= 200 && !refused; n++) {
    const res = await write(app, n)
    if (res.statusCode !== 201) refused = res
  }
  assert.ok(refused, 'a write was refused once the disk was full')
  assert.equal(refused.statusCode, 507, refused.body)
  assert.equal(refused.json().error.code, 'STORAGE_FULL')
  assert.equal(refused.headers['retry-after'], '60')
  // The error object only: the request id is random hex and may hold "53100" itself.
  assert.doesNotMatch(JSON.stringify(refused.json().error), /SQLITE|53100|No space|rollback|stack|INSERT/i, 'no driver text, SQL or stack in the body')
  const again = await write(app, 1000)
  assert.deepEqual([again.statusCode, again.json().error.code], [507, 'STORAGE_FULL'])

  // A few of the worker's heartbeats fail meanwhile (on PostgreSQL for sure: its table refuses writes too).
  await new Promise((r) => setTimeout(r, 500))

  // Reads go on.
  const list = await machine(app, token, '/gatehouse/v1/global-sets?limit=1')
  assert.equal(list.status, 200)

  const readiness = await machine(app, token, '/gatehouse/v1/readiness')
  const storage = readiness.body.data.checks.find((c: { name: string }) => c.name === 'storage')
  assert.equal(readiness.body.data.verdict, 'not_ready')
  assert.equal(storage.status, 'fail')
  assert.match(storage.message, /disk is full: writes answer 507 STORAGE_FULL/)
  assert.ok(['SQLITE_FULL', '53100'].includes(storage.details.code), storage.details.code)

  const incidents = await machine(app, token, '/gatehouse/v1/incidents?status=open')
  const incident = incidents.body.data.find((i: { category: string }) => i.category === 'storage_full')
  assert.ok(incident, JSON.stringify(incidents.body))
  assert.deepEqual([incident.status, incident.currentSeverity], ['open', 'critical'])
  assert.match(incident.recommendedAction, /Free space/)

  const bundle = await machine(app, token, '/gatehouse/v1/diagnostics/bundle')
  assert.equal(bundle.body.data.checks.storage.status, 'error')
  assert.ok(bundle.body.data.checks.storage.problems.some((p: string) => /disk is full/.test(p)), JSON.stringify(bundle.body.data.checks.storage))
  assert.equal(bundle.body.data.checks.storage.diskFull.code, storage.details.code)

  // The cause once, however many writes were refused; never the generic "unhandled error".
  const full = logs.filter((l) => /^storage full/.test(l.msg))
  assert.equal(full.length, 1, JSON.stringify(logs.map((l) => l.msg)))
  assert.equal(full[0].code, storage.details.code)
  assert.deepEqual(logs.filter((l) => l.level >= 40 && !/^storage full/.test(l.msg)).map((l) => l.msg), [], 'nothing else warns or errs about it')

  await free()
  assert.equal((await write(app, 2000)).statusCode, 201, 'writes succeed once space is freed')
  const after = await machine(app, token, '/gatehouse/v1/readiness')
  assert.equal(after.body.data.checks.find((c: { name: string }) => c.name === 'storage').status, 'ok')
  assert.notEqual(after.body.data.verdict, 'not_ready', JSON.stringify(after.body.data.checks.filter((c: { status: string }) => c.status !== 'ok')))
  const history = await machine(app, token, '/gatehouse/v1/incidents')
  const resolved = history.body.data.filter((i: { category: string }) => i.category === 'storage_full')
  assert.deepEqual(resolved.map((i: { status: string }) => i.status), ['resolved'], 'the episode stays in the history, resolved')
  assert.equal((await machine(app, token, '/gatehouse/v1/diagnostics/bundle')).body.data.checks.storage.diskFull, null)
  assert.equal(logs.filter((l) => /^storage writable again/.test(l.msg)).length, 1)
}

/** A tmpfs of `size` at a new directory, or why it cannot be mounted here. */
function mountTmpfs(size: string): { dir: string } | { reason: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-full-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' })
    return { dir }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true })
    return { reason: `cannot mount a size-limited tmpfs here (needs root or CAP_SYS_ADMIN): ${String((err as { stderr?: unknown }).stderr ?? err).trim()}` }
  }
}

/** Fills the file system holding `dir` with one file; returns it. */
function ballast(dir: string): string {
  const file = join(dir, 'ballast')
  const fd = openSync(file, 'w')
  try {
    for (const size of [1 << 20, 1 << 12]) {
      const chunk = Buffer.alloc(size)
      for (;;) {
        try { writeSync(fd, chunk) } catch { break }
      }
    }
  } finally {
    closeSync(fd)
  }
  const fs = statfsSync(dir)
  assert.ok(fs.bavail * fs.bsize < 8192, 'the file system is full')
  return file
}

const mounted = (await testDialects()).includes('sqlite') ? mountTmpfs('24m') : { reason: 'sqlite not among the dialects' }

test('sqlite: a full disk answers 507 STORAGE_FULL, logs once, shows in readiness, incidents and diagnostics until a write succeeds', { skip: 'reason' in mounted ? mounted.reason : false }, async (t) => {
  if ('reason' in mounted) return
  const unmount = () => {
    try { execFileSync('umount', [mounted.dir], { stdio: 'pipe' }) } finally { rmSync(mounted.dir, { recursive: true, force: true }) }
  }
  const { app, logs } = await appOn(`sqlite:${join(mounted.dir, 'gatehouse.db')}`).catch((err: unknown) => { unmount(); throw err })
  t.after(async () => { try { await app.close(); await app.services.database.close() } finally { unmount() } })
  let file = ''
  await exercise(app, logs, async () => { file = ballast(mounted.dir) }, async () => { rmSync(file) })
})

if ((await testDialects()).includes('postgres')) {
  test('postgres: disk_full (SQLSTATE 53100) answers 507 STORAGE_FULL, logs once, shows in readiness, incidents and diagnostics until a write succeeds', async (t) => {
    const base = await testDatabase('postgres')
    const { app, logs } = await appOn(PG_URL, base.schema)
    t.after(async () => { await app.close(); await app.services.database.close(); await base.destroy() })
    const db = app.services.database.db
    const schema = sql.id(base.schema as string)
    await exercise(app, logs, async () => {
      // The server's own error for a full disk, raised where the writes and the probe write.
      await sql`CREATE FUNCTION ${schema}.disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'could not extend file "base/16384/16385": No space left on device' USING ERRCODE = '53100', HINT = 'Check free disk space.'; END $$`.execute(db)
      for (const table of ['global_sets', 'meta', 'webhook_workers']) {
        await sql`CREATE TRIGGER disk_full BEFORE INSERT OR UPDATE ON ${schema}.${sql.id(table)} FOR EACH ROW EXECUTE FUNCTION ${schema}.disk_full()`.execute(db)
      }
    }, async () => {
      for (const table of ['global_sets', 'meta', 'webhook_workers']) await sql`DROP TRIGGER disk_full ON ${schema}.${sql.id(table)}`.execute(db)
    })
  })
}
