// What the CLI says when it cannot do what was asked: errors name the flag the user typed
// (not the service's field), an unknown scope lists the valid ones, a busy port names the
// option or setting that chose it; and a reader that closes the pipe ends it quietly.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { ScopeCatalog } from '../../src/auth/scopes.js'
import { defaultRegistry } from '../../src/resources/index.js'

const catalog = new ScopeCatalog(defaultRegistry)
import { ROOT, assertNoInternals, cliArgs, cliDatabase, cliEnv, runCli } from './helpers/cli.js'

test('credentials create: a bad --expires-in, --ip or --scopes is named as typed; an unknown scope lists the valid ones', async (t) => {
  const target = await cliDatabase('sqlite')
  t.after(() => target.destroy())
  const env = { PLUGIN_GATEHOUSE_DATABASE_URL: target.url }
  const create = (...extra: string[]) => runCli(['credentials', 'create', '--label', 'Sync', '--scopes', 'products:read', ...extra], { env })

  const expiry = await create('--expires-in', '3x')
  assert.equal(expiry.code, 1)
  assert.equal(expiry.stderr, "gatehouse: option '--expires-in <duration>' argument '3x' is invalid. expected a duration like 30d, 12h or 90m\n")

  const ip = await create('--ip', '10.0.0.0/8,10.0.0.0/99,nope')
  assert.equal(ip.code, 1)
  assert.match(ip.stderr, /^gatehouse: option '--ip <list>' argument '10\.0\.0\.0\/8,10\.0\.0\.0\/99,nope' is invalid\. not a CIDR block: 10\.0\.0\.0\/99, nope /)

  const scope = await runCli(['credentials', 'create', '--label', 'Sync', '--scopes', 'products:read,products:reed'], { env })
  assert.equal(scope.code, 1)
  assert.equal(scope.stderr, `gatehouse: invalid --scopes: unknown scope "products:reed"; valid scopes: ${catalog.entries.map((s) => s.scope).join(', ')}, plugins:{plugin}:{resource}:read\n`)

  // A field the service refuses is named by the command's own option.
  const label = await runCli(['credentials', 'create', '--label', ' ', '--scopes', 'products:read'], { env })
  assert.equal(label.code, 1)
  assert.equal(label.stderr, 'gatehouse: invalid --label: a non-empty string of at most 200 characters is required\n')
  for (const r of [expiry, ip, scope, label]) assertNoInternals(r.stderr)
})

test('gatehouse scopes lists the catalogue, with what each allows and whether this configuration advertises it', async () => {
  const json = await runCli(['scopes', '--json'], { env: { PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true' } })
  assert.equal(json.code, 0, json.stderr)
  const listed = JSON.parse(json.stdout) as { scope: string; group: string; description: string; advertised: boolean; flag: string | null; deprecatedFor: string | null }[]
  assert.deepEqual(listed.map((s) => s.scope), catalog.entries.map((s) => s.scope))
  const byScope = new Map(listed.map((s) => [s.scope, s]))
  assert.deepEqual(byScope.get('products:read'), { scope: 'products:read', group: 'commerce', description: 'Products', advertised: true, flag: null, deprecatedFor: null })
  assert.deepEqual([byScope.get('users:read')?.advertised, byScope.get('users:read')?.flag], [true, 'PLUGIN_GATEHOUSE_ENABLE_USERS_API'])
  assert.deepEqual([byScope.get('addresses:read')?.advertised, byScope.get('addresses:read')?.flag], [false, 'PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API'])
  assert.equal(byScope.get('consumers:read')?.deprecatedFor, 'syncstate:read')
  // Advertised exactly as /capabilities advertises: the job runtime's routes use jobs:read.
  assert.equal(byScope.get('jobs:read')?.advertised, true)

  const table = await runCli(['scopes'], { env: {} })
  assert.equal(table.code, 0, table.stderr)
  assert.match(table.stdout, /^SCOPE +GROUP +ALLOWS +NOTE\n/)
  assert.match(table.stdout, /\naddresses:read +people +.+ +needs PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API=true \(off\)\n/)
  assert.match(table.stdout, /\nconsumers:write +integration +.+deprecated alias of syncstate:write\n/)
})

test('a busy port names --port when the port came from it, and the setting otherwise', async (t) => {
  const blocker = createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  t.after(() => blocker.close())
  const port = String((blocker.address() as { port: number }).port)
  const target = await cliDatabase('sqlite')
  t.after(() => target.destroy())
  const env = { PLUGIN_GATEHOUSE_DATABASE_URL: target.url }

  const byOption = await runCli(['serve', '--port', port], { env })
  assert.equal(byOption.code, 1)
  assert.equal(byOption.stderr, `gatehouse: port ${port} on 127.0.0.1 is already in use; choose another with --port\n`)
  const bySetting = await runCli(['serve'], { env: { ...env, PLUGIN_GATEHOUSE_PORT: port } })
  assert.equal(bySetting.code, 1)
  assert.equal(bySetting.stderr, `gatehouse: port ${port} on 127.0.0.1 is already in use; choose another with --port or PLUGIN_GATEHOUSE_PORT\n`)
  // `start` finds out before it makes and prints one-time secrets (whose "Try: curl" lines
  // would send them to whatever holds the port).
  const first = await runCli(['start', '--no-demo', '--port', port], { env })
  assert.equal(first.code, 1)
  assert.equal(first.stderr, `gatehouse: port ${port} on 127.0.0.1 is already in use; choose another with --port\n`)
  assert.equal(first.stdout, '', 'nothing was set up or printed')
  // A bad --port is named as typed, not as the setting it fills.
  for (const command of ['serve', 'start']) {
    const bad = await runCli([command, '--port', 'eighty'], { env })
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /--port.*eighty.*expected a whole number from 0 to 65535/)
    assert.doesNotMatch(bad.stderr, /PLUGIN_GATEHOUSE_PORT/)
  }
})

/** Runs a command, reads its first chunk of output, then closes the pipe as `| head -1` does. */
function readFirstChunkThenClose(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; first: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliArgs(args), { cwd: ROOT, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
    let first = ''
    let stderr = ''
    child.stdout.once('data', (d: Buffer) => { first = d.toString(); child.stdout.destroy() })
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error('timed out')) }, 60_000)
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, first, stderr }) })
  })
}

test('a closed pipe ends a command quietly, exit 0 and nothing on stderr (gatehouse openapi | head -1)', async () => {
  for (const args of [['openapi'], ['scopes', '--json']]) {
    const res = await readFirstChunkThenClose(args, {})
    assert.ok(res.first.startsWith('{') || res.first.startsWith('['), `${args.join(' ')} printed ${res.first.slice(0, 40)}`)
    assert.equal(res.stderr, '', `${args.join(' ')}: ${res.stderr}`)
    assert.equal(res.code, 0)
  }
})

test('openapi --output to a folder that does not exist names --output, without a stack', async () => {
  const res = await runCli(['openapi', '--output', '/nonexistent-folder/x.json'], { env: {} })
  assert.equal(res.code, 1)
  assert.equal(res.stderr, 'gatehouse: invalid --output: cannot write /nonexistent-folder/x.json: its folder does not exist\n')
})
