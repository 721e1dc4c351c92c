// `gatehouse start` on a fresh database: migrates, loads demo data, prints a machine token
// and an admin login once, and serves; the token works against the served API. A restart
// prints no new secrets.
// npm test: timing (starts real processes and waits for them to serve)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { verifyAdminLogin } from '../../src/auth/admin-accounts.js'
import { ROOT, cliArgs, cliDatabase, cliEnv } from './helpers/cli.js'
import { freePort } from '../helpers/free-port.js'
import { startServeProcess } from '../helpers/serve-process.js'
import { until } from '../helpers/until.js'

interface Started {
  readonly child: ChildProcess
  readonly base: string
  output(): string
  errors(): string
  stop(): Promise<number | null>
}

async function start(env: Record<string, string>): Promise<Started> {
  const port = await freePort()
  const child = spawn(process.execPath, cliArgs(['start']), {
    cwd: ROOT, env: cliEnv({ ...env, PLUGIN_GATEHOUSE_PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  // Stuck means a minute without a line of output (migrating, the demo data's progress, the
  // tokens, listening), not a minute in all: on a loaded machine loading the demo data alone
  // took longer than that.
  let lastOutput = Date.now()
  child.stdout?.on('data', (d: Buffer) => { out += d.toString(); lastOutput = Date.now() })
  child.stderr?.on('data', (d: Buffer) => { err += d.toString(); lastOutput = Date.now() })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const base = `http://127.0.0.1:${port}`
  for (;;) {
    if (child.exitCode !== null) throw new Error(`start exited early (${child.exitCode}):\n${out}\n${err}`)
    const ok = await fetch(`${base}/livez`).then((r) => r.ok, () => false)
    if (ok && out.includes('Gatehouse listening on')) break
    if (Date.now() - lastOutput > 60_000) { child.kill('SIGKILL'); throw new Error(`start did not come up (no output for 60 s):\n${out}\n${err}`) }
    await new Promise((r) => setTimeout(r, 200))
  }
  return {
    child, base, output: () => out, errors: () => err,
    async stop() {
      child.kill('SIGTERM')
      return exited
    },
  }
}

/**
 * docs/getting-started.md shows a first run's output; it must be this output, figures and all
 * (migrations applied, records loaded), with only secrets, ids, addresses and timings differing.
 * The progress bar shows its last line only, as a terminal leaves it.
 */
function assertGettingStartedSample(stdout: string, stderr: string): void {
  const doc = readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8')
  const sample = /The first run prints something like:\n\n```text\n([\s\S]*?)```/.exec(doc)?.[1]
  assert.ok(sample, 'getting-started has the first-run sample')
  const normalise = (text: string) => text
    .replace(/sqlite:\S+?: /g, 'sqlite:DATABASE: ')
    .replace(/gth_[^"\s]+/g, 'TOKEN')
    .replace(/gta_[^"\s]+/g, 'ADMIN_TOKEN')
    .replace(/cred_[A-Za-z0-9_-]+/g, 'CREDENTIAL')
    .replace(/adm_[A-Za-z0-9_-]+/g, 'ADMIN_TOKEN_ID')
    .replace(/password: \S+/g, 'password: PASSWORD')
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://ADDRESS')
    .replace(/in \d+\.\ds$/gm, 'in N.Ns')
  const [databaseLine, ...rest] = stdout.split('\n')
  const loaded = stderr.split('\n').filter((l) => l.startsWith('Loading demo data: ') && !l.includes('%')).at(-1)
  assert.ok(loaded, `no final progress line in:\n${stderr}`)
  assert.equal(normalise(sample), normalise([databaseLine, loaded, ...rest].join('\n')))
}

test('start serves demo data and prints a working token and admin login once', async (t) => {
  const target = await cliDatabase('sqlite')
  t.after(() => target.destroy())
  // At the default log level: the banner is the only line that says where it listens.
  const env = { PLUGIN_GATEHOUSE_DATABASE_URL: target.url, PLUGIN_GATEHOUSE_LOG_LEVEL: 'info' }

  const first = await start(env)
  t.after(() => { if (first.child.exitCode === null) first.child.kill('SIGKILL') })
  const out = first.output()
  assert.match(out, /^Database sqlite:.*: \d+ migration\(s\) applied(, \d+ schema step\(s\) applied)?$/m)
  const token = /^ {2}(gth_[A-Za-z0-9_-]{43})$/m.exec(out)?.[1]
  assert.ok(token, `no token in:\n${out}`)
  const password = /^ {2}password: (\S+)$/m.exec(out)?.[1]
  assert.match(out, /^ {2}username: admin$/m)
  assert.ok(password)

  const headers = { authorization: `Bearer ${token}` }
  const whoami = await fetch(`${first.base}/gatehouse/v1/auth/whoami`, { headers })
  assert.equal(whoami.status, 200)
  const me = (await whoami.json()) as { ok: boolean; data: { credentialId: string; label: string; scopes: string[] } }
  assert.equal(me.ok, true)
  assert.equal(me.data.label, 'Demo token (all read scopes)')
  assert.ok(out.includes(`Machine token for ${me.data.credentialId}`))
  for (const scope of ['products:read', 'entries:read', 'orders:read_sensitive', 'changes:read']) assert.ok(me.data.scopes.includes(scope), scope)

  // The admin API token printed opens the admin API (and only it).
  const adminToken = /^ {2}(gta_[A-Za-z0-9_-]{43})$/m.exec(out)?.[1]
  assert.ok(adminToken, `no admin token in:\n${out}`)
  const adminCall = await fetch(`${first.base}/gatehouse/admin/v1/credentials`, { headers: { authorization: `Bearer ${adminToken}` } })
  assert.equal(adminCall.status, 200)
  assert.equal((await fetch(`${first.base}/gatehouse/v1/auth/whoami`, { headers: { authorization: `Bearer ${adminToken}` } })).status, 401)

  // The demo data is there to read.
  const products = (await (await fetch(`${first.base}/gatehouse/v1/products?limit=3`, { headers })).json()) as { data: { variants: unknown[] }[]; pagination: { hasMore: boolean } }
  assert.equal(products.data.length, 3)
  assert.ok(products.data.every((p) => p.variants.length >= 1))
  assert.equal(products.pagination.hasMore, true)
  const entries = (await (await fetch(`${first.base}/gatehouse/v1/entries?section=news&limit=2`, { headers })).json()) as { data: { section: string }[] }
  assert.deepEqual(entries.data.map((e) => e.section), ['news', 'news'])

  assert.equal(await first.stop(), 0)
  assert.match(first.output(), /Gatehouse listening on http:\/\/127\.0\.0\.1:\d+/)
  assert.doesNotMatch(first.output(), /Server listening/, 'no JSON listen line inside the banner')
  assertGettingStartedSample(first.output(), first.errors())

  // The admin login printed is the one stored.
  const database = target.open()
  t.after(() => database.close())
  assert.ok(await verifyAdminLogin(database.db, 'admin', password))
  // Both secrets it made are audited as the operator's, like the same commands run by hand.
  const created = await database.db.selectFrom('control_audit').select(['actor_type', 'entity_type']).where('category', '=', 'credential').where('action', '=', 'create').execute()
  assert.deepEqual(created.map((r) => `${r.entity_type} by ${r.actor_type}`).sort(), ['admin_token by cli', 'credential by cli'])

  // A restart prints no new secrets, says how to get new ones, and keeps the data.
  const second = await start(env)
  t.after(() => { if (second.child.exitCode === null) second.child.kill('SIGKILL') })
  const again = second.output()
  assert.doesNotMatch(again, /gth_|gta_/)
  assert.match(again, /^Admin API token: adm_[A-Za-z0-9_-]+ \(shown on the first run; only its digest is stored\)\.$/m)
  assert.doesNotMatch(again, /^ {2}password: /m)
  assert.match(again, /^Database sqlite:.*: up to date$/m)
  assert.ok(again.includes(`npx gatehouse credentials rotate ${me.data.credentialId}`))
  assert.ok(again.includes('npx gatehouse admin set-password --username admin'))
  const stillWorks = await fetch(`${second.base}/gatehouse/v1/auth/whoami`, { headers })
  assert.equal(stillWorks.status, 200)
  assert.equal(await second.stop(), 0)
  const counts = await database.db.selectFrom('credentials').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()
  assert.equal(Number(counts.n), 1)
})

// `serve` is what runs under a log pipeline: there Fastify's JSON line saying where it listens
// stays (only `start`, which prints the address in its banner, leaves it out).
test('serve at the info log level still logs the JSON listen line', async (t) => {
  const target = await cliDatabase('sqlite')
  t.after(() => target.destroy())
  const served = await startServeProcess({ PLUGIN_GATEHOUSE_DATABASE_URL: target.url, PLUGIN_GATEHOUSE_LOG_LEVEL: 'info' })
  t.after(() => served.stop())
  await until(() => /"msg":"Server listening at http:\/\/127\.0\.0\.1:\d+"/.test(served.output()), 'the JSON listen line')
})
