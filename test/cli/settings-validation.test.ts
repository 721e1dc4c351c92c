// Settings an attacker or a typo could turn against the service stop start-up naming the
// setting: wildcard or unknown scopes, webhook URLs with credentials, other schemes,
// link-local and cloud-metadata targets (unless explicitly allowed), the dev sink however
// its path is spelled, a malformed whsec_ secret, a malformed Redis prefix.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { loadSettings, setFromCommandLine, SettingsError } from '../../src/kernel/settings.js'
import { cliDatabase, runCli } from './helpers/cli.js'
import { buildTestApp } from '../helpers/test-app.js'

const refused = (env: Record<string, string>, setting: string, problem?: RegExp) => {
  assert.throws(() => loadSettings(env), (e: unknown) => {
    assert.ok(e instanceof SettingsError, String(e))
    assert.match(e.message, new RegExp(`^Invalid setting ${setting}[: (]`), e.message)
    if (problem) assert.match(e.message, problem)
    return true
  }, JSON.stringify(env))
}

const HOOK = { PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'a-secret-of-enough-length' }

test('PLUGIN_GATEHOUSE_TOKEN_SCOPES: * or an unknown scope stops start-up, naming the setting and the scope', async (t) => {
  // Scopes are checked against the app's catalogue when its services start.
  const startsWith = async (env: Record<string, string>, setting: string, problem: RegExp) => {
    await assert.rejects(buildTestApp({ dialect: 'sqlite', env }), (e: unknown) => {
      assert.ok(e instanceof SettingsError, String(e))
      assert.match(e.message, new RegExp(`^Invalid setting ${setting}: `))
      assert.match(e.message, problem)
      return true
    }, JSON.stringify(env))
  }
  await startsWith({ PLUGIN_GATEHOUSE_API_TOKEN: 'legacy-token', PLUGIN_GATEHOUSE_TOKEN_SCOPES: '*' }, 'PLUGIN_GATEHOUSE_TOKEN_SCOPES', /unknown scope "\*"; wildcards are not scopes/)
  await startsWith({ PLUGIN_GATEHOUSE_API_TOKEN: 'legacy-token', PLUGIN_GATEHOUSE_TOKEN_SCOPES: 'products:read,products:write' }, 'PLUGIN_GATEHOUSE_TOKEN_SCOPES', /unknown scope "products:write"/)
  await startsWith({ PLUGIN_GATEHOUSE_API_TOKEN: 'legacy-token', PLUGIN_GATEHOUSE_TOKEN_SCOPES: 'orders:*' }, 'PLUGIN_GATEHOUSE_TOKEN_SCOPES', /"orders:\*"/)
  // Also without the token it is for: the typo surfaces now, not when a token is set.
  await startsWith({ PLUGIN_GATEHOUSE_TOKEN_SCOPES: 'bogus' }, 'PLUGIN_GATEHOUSE_TOKEN_SCOPES', /unknown scope "bogus"/)
  await startsWith({ PLUGIN_GATEHOUSE_API_CREDENTIALS: JSON.stringify([{ id: 'a', token: 'tok-a', scopes: ['*'] }]) }, 'PLUGIN_GATEHOUSE_API_CREDENTIALS', /entry 0: unknown scope "\*"/)
  const ok = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_API_TOKEN: 'legacy-token', PLUGIN_GATEHOUSE_TOKEN_SCOPES: 'products:read orders:read_sensitive, consumers:read' } })
  t.after(() => ok.close())
  const whoami = await ok.get('/gatehouse/v1/auth/whoami', 'legacy-token')
  assert.equal(whoami.statusCode, 403, 'known scopes (deprecated aliases included) start; auth:read was not granted')

  // The real command: one line, exit 1.
  const db = await cliDatabase('sqlite')
  t.after(() => db.destroy())
  const res = await runCli(['credentials', 'list'], { env: { PLUGIN_GATEHOUSE_DATABASE_URL: db.url, PLUGIN_GATEHOUSE_API_TOKEN: 'legacy-token', PLUGIN_GATEHOUSE_TOKEN_SCOPES: '*' } })
  assert.equal(res.code, 1, res.stdout)
  assert.match(res.stderr.trim(), /^gatehouse: Invalid setting PLUGIN_GATEHOUSE_TOKEN_SCOPES: unknown scope "\*"/)
})

test('PLUGIN_GATEHOUSE_WEBHOOK_URL: userinfo, other schemes, link-local and metadata addresses are refused unless allowed', () => {
  const url = (u: string) => ({ ...HOOK, PLUGIN_GATEHOUSE_WEBHOOK_URL: u })
  refused(url('https://user:pass@hooks.example.com/in'), 'PLUGIN_GATEHOUSE_WEBHOOK_URL', /user name or password/)
  refused(url('https://token@hooks.example.com/in'), 'PLUGIN_GATEHOUSE_WEBHOOK_URL', /user name or password/)
  refused(url('ftp://hooks.example.com/in'), 'PLUGIN_GATEHOUSE_WEBHOOK_URL', /http\(s\) URL/)
  refused(url('file:///etc/passwd'), 'PLUGIN_GATEHOUSE_WEBHOOK_URL', /http\(s\) URL/)
  for (const target of [
    'http://169.254.169.254/latest/meta-data/', 'http://169.254.1.7:8080/hook', 'http://[fe80::1]/hook', 'http://[fe80::abcd:1]:9000/',
    // Other spellings of the same addresses, as the URL parser normalises them.
    'http://2852039166/', 'http://0xa9.0xfe.0xa9.0xfe/', 'http://[::ffff:169.254.169.254]/', 'http://169.254.169.254./',
    'http://metadata.google.internal/computeMetadata/v1/', 'http://METADATA.GOOGLE.INTERNAL./', 'http://[fd00:ec2::254]/', 'http://100.100.100.200/',
  ]) {
    refused(url(target), 'PLUGIN_GATEHOUSE_WEBHOOK_URL', /link-local or cloud-metadata address; set PLUGIN_GATEHOUSE_WEBHOOK_ALLOW_PRIVATE=true/)
    assert.equal(loadSettings({ ...url(target), PLUGIN_GATEHOUSE_WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookUrl, target, `${target} with the opt-in`)
  }
  // Userinfo stays refused even with the opt-in; ordinary and loopback receivers are fine.
  refused({ ...url('http://u:p@169.254.169.254/'), PLUGIN_GATEHOUSE_WEBHOOK_ALLOW_PRIVATE: 'true' }, 'PLUGIN_GATEHOUSE_WEBHOOK_URL', /user name or password/)
  for (const ok of ['https://hooks.example.com/in', 'http://127.0.0.1:9000/hook', 'http://10.0.0.5/hook', 'http://[::1]:9000/']) {
    assert.equal(loadSettings(url(ok)).webhookUrl, ok)
  }
  assert.equal(loadSettings({}).webhookAllowPrivate, false)
})

test('the dev test sink is recognised by its parsed path, however it is spelled', () => {
  for (const sink of [
    'http://127.0.0.1:8080/gatehouse/dev/webhook-test-sink', 'http://127.0.0.1:8080//gatehouse/dev/webhook-test-sink',
    'http://127.0.0.1:8080/gatehouse//dev///webhook-test-sink/', 'http://127.0.0.1:8080/gatehouse/dev/%77ebhook-test-sink',
    'http://127.0.0.1:8080/gatehouse%2Fdev%2Fwebhook-test-sink', 'http://127.0.0.1:8080/Gatehouse/DEV/webhook-test-sink',
    'http://127.0.0.1:8080/gatehouse/x/../dev/webhook-test-sink', 'http://h/gatehouse/dev/webhook-test-sink?x=1#y',
  ]) {
    refused({ ...HOOK, PLUGIN_GATEHOUSE_WEBHOOK_URL: sink }, 'PLUGIN_GATEHOUSE_WEBHOOK_URL', /dev test sink/)
    const dev = loadSettings({ ...HOOK, PLUGIN_GATEHOUSE_WEBHOOK_URL: sink, PLUGIN_GATEHOUSE_DEV_MODE: 'true', PLUGIN_GATEHOUSE_WEBHOOK_TEST_SINK: 'true' })
    assert.equal(dev.webhookUrl, sink, 'allowed in dev mode with the sink')
  }
  assert.equal(loadSettings({ ...HOOK, PLUGIN_GATEHOUSE_WEBHOOK_URL: 'http://h/gatehouse/dev/webhook-test-sink-not' }).webhookUrl, 'http://h/gatehouse/dev/webhook-test-sink-not')
})

test('a whsec_ secret must carry base64; the Redis prefix is checked and defaults to gatehouse:', () => {
  const hook = { PLUGIN_GATEHOUSE_WEBHOOK_URL: 'https://hooks.example.com/in' }
  refused({ ...hook, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'whsec_not base64!' }, 'PLUGIN_GATEHOUSE_WEBHOOK_SECRET', /base64/)
  refused({ ...hook, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'whsec_' }, 'PLUGIN_GATEHOUSE_WEBHOOK_SECRET', /base64/)
  assert.equal(loadSettings({ ...hook, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }).webhookSecret, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')
  assert.equal(loadSettings({}).redisPrefix, 'gatehouse:')
  assert.equal(loadSettings({ PLUGIN_GATEHOUSE_REDIS_PREFIX: 'site-b:' }).redisPrefix, 'site-b:')
  refused({ PLUGIN_GATEHOUSE_REDIS_PREFIX: 'has space' }, 'PLUGIN_GATEHOUSE_REDIS_PREFIX')
})

test('log level, host and Redis URL are checked with their allowed values; a misspelt name is a warning naming the one meant', () => {
  refused({ PLUGIN_GATEHOUSE_LOG_LEVEL: 'verbose' }, 'PLUGIN_GATEHOUSE_LOG_LEVEL', /must be one of: fatal, error, warn, info, debug, trace, silent; got "verbose"/)
  refused({ PLUGIN_GATEHOUSE_HOST: '256.0.0.1' }, 'PLUGIN_GATEHOUSE_HOST', /expected a host name or an IP address/)
  refused({ PLUGIN_GATEHOUSE_HOST: 'example.com/x' }, 'PLUGIN_GATEHOUSE_HOST')
  refused({ PLUGIN_GATEHOUSE_REDIS_URL: 'http://x' }, 'PLUGIN_GATEHOUSE_REDIS_URL', /expected redis:\/\/… or rediss:\/\/…/)
  refused({ PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'maybe' }, 'PLUGIN_GATEHOUSE_ENABLE_USERS_API', /also yes\/no, on\/off, 1\/0/)
  for (const host of ['0.0.0.0', '::', 'localhost', 'gatehouse.internal']) assert.equal(loadSettings({ PLUGIN_GATEHOUSE_HOST: host }).host, host)
  assert.equal(loadSettings({ PLUGIN_GATEHOUSE_REDIS_URL: 'rediss://cache:6380/1' }).redisUrl, 'rediss://cache:6380/1')

  const s = loadSettings({ PLUGIN_GATEHOUSE_PROT: '9090', PLUGIN_GATEHOUSE_ENABLE_USER_API: 'true', PLUGIN_GATEHOUSE_NOTHING_LIKE_ANY: '1' })
  assert.deepEqual(s.warnings, [
    'PLUGIN_GATEHOUSE_PROT is not a setting; ignored (did you mean PLUGIN_GATEHOUSE_PORT?)',
    'PLUGIN_GATEHOUSE_ENABLE_USER_API is not a setting; ignored (did you mean PLUGIN_GATEHOUSE_ENABLE_USERS_API?)',
    'PLUGIN_GATEHOUSE_NOTHING_LIKE_ANY is not a setting; ignored',
  ])
  assert.equal(s.port, 8080)
})

test('a setting given by a command option says so as its source (the panel shows it)', (t) => {
  const before = process.env.PLUGIN_GATEHOUSE_PORT
  t.after(() => { if (before === undefined) delete process.env.PLUGIN_GATEHOUSE_PORT; else process.env.PLUGIN_GATEHOUSE_PORT = before })
  setFromCommandLine('PORT', '18123')
  const s = loadSettings(process.env)
  assert.equal(s.port, 18123)
  assert.equal(s.sources.PLUGIN_GATEHOUSE_PORT, 'command line')
  assert.equal(loadSettings({ PLUGIN_GATEHOUSE_PORT: '18123' }).sources.PLUGIN_GATEHOUSE_PORT, 'environment', 'an environment given explicitly is the environment')
})
