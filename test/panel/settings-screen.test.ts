// The Settings screen shows every setting src/settings.ts reads (each row of
// docs/configuration.md), the value the process uses (defaults applied, maxima clamped) and
// where it came from: a real environment variable wins over the .env file, which wins over
// the default. Tokens, secrets, URL passwords and webhook paths never reach the page.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadSettings } from '../../src/kernel/settings.js'
import { settingEntries } from '../../src/panel/setting-entries.js'
import { panelApp, signedIn } from './helpers/panel-client.js'

const ADMIN_TOKEN = 'adm-secret-from-dotenv-5b7c9e1f3a'
const LEGACY_TOKEN = 'legacy-token-value-8d2e4f6a0c'
const CONFIGURED_TOKEN = 'configured-token-value-1a3c5e7b9d'
const WEBHOOK_SECRET = 'webhook-signing-secret-0123456789'

/** Rows of the screen: name → [value as text, source]. */
function rowsOf(body: string): Map<string, [string, string]> {
  const rows = new Map<string, [string, string]>()
  for (const m of body.matchAll(/<tr id="(PLUGIN_GATEHOUSE_[A-Z0-9_]+)">.*?data-label="Value"><div>(.*?)<\/div><\/td><td data-label="Source"><div>(.*?)<\/div>/g)) {
    rows.set(m[1], [m[2].replace(/<[^>]+>/g, '').replace(/&#39;/g, "'").replace(/&amp;/g, '&'), m[3]])
  }
  return rows
}

test('Settings shows every setting, its effective value and its source, with secrets masked', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-settings-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const dotEnv = join(dir, '.env')
  writeFileSync(dotEnv, [
    `PLUGIN_GATEHOUSE_ADMIN_TOKEN=${ADMIN_TOKEN}`,
    'PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS=7',
    'PLUGIN_GATEHOUSE_WEBHOOK_TIMEOUT_SECONDS=9', // the environment sets it too, and wins
  ].join('\n'))
  const app = await panelApp({
    PLUGIN_GATEHOUSE_WEBHOOK_URL: 'http://127.0.0.1:9/hooks/receiver-key-42?sig=abc',
    PLUGIN_GATEHOUSE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PLUGIN_GATEHOUSE_WEBHOOK_TIMEOUT_SECONDS: '75', // above the maximum: clamped to 60
    PLUGIN_GATEHOUSE_API_TOKEN: LEGACY_TOKEN,
    PLUGIN_GATEHOUSE_API_CREDENTIALS: JSON.stringify([{ id: 'storefront', label: 'Storefront', token: CONFIGURED_TOKEN, scopes: ['products:read', 'entries:read'] }]),
    PLUGIN_GATEHOUSE_PROVIDERS: '',
  }, { dotEnv })
  t.after(() => app.close())
  const s = await signedIn(app)

  const res = await s.page('/gatehouse/cp/settings')
  assert.equal(res.statusCode, 200)
  assert.match(res.body, /<a href="\/gatehouse\/cp\/settings" aria-current="page">Settings<\/a>/, 'a screen in the navigation')
  const rows = rowsOf(res.body)

  // Every documented setting has its row, and nothing else does.
  const documented = [...readFileSync('docs/configuration.md', 'utf8').matchAll(/^\| `(PLUGIN_GATEHOUSE_[A-Z0-9_]+)` \|/gm)].map((m) => m[1])
  assert.ok(documented.length >= 20)
  assert.deepEqual([...rows.keys()].sort(), [...new Set(documented)].sort())

  assert.deepEqual(rows.get('PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS'), ['7', '.env file'])
  assert.deepEqual(rows.get('PLUGIN_GATEHOUSE_WEBHOOK_TIMEOUT_SECONDS'), ['60', 'environment'])
  assert.deepEqual(rows.get('PLUGIN_GATEHOUSE_PORT'), ['8080', 'default'])
  assert.deepEqual(rows.get('PLUGIN_GATEHOUSE_REDIS_PREFIX'), ['gatehouse:', 'default'])
  assert.deepEqual(rows.get('PLUGIN_GATEHOUSE_WEBHOOK_TEST_SINK'), ['false', 'default'])
  assert.deepEqual(rows.get('PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE'), ['0', 'environment'])
  assert.deepEqual(rows.get('PLUGIN_GATEHOUSE_REDIS_URL'), ['not set', 'default'])
  assert.deepEqual(rows.get('PLUGIN_GATEHOUSE_PROVIDERS'), ['none', 'default'], 'an empty value counts as unset')
  assert.deepEqual(rows.get('PLUGIN_GATEHOUSE_ADMIN_TOKEN'), ['set (hidden)', '.env file'])
  assert.deepEqual(rows.get('PLUGIN_GATEHOUSE_API_TOKEN'), ['set (hidden)', 'environment'])
  assert.deepEqual(rows.get('PLUGIN_GATEHOUSE_WEBHOOK_SECRET'), ['set (hidden)', 'environment'])
  assert.deepEqual(rows.get('PLUGIN_GATEHOUSE_WEBHOOK_URL'), ['http://127.0.0.1:9/… (path hidden)', 'environment'])
  assert.deepEqual(rows.get('PLUGIN_GATEHOUSE_API_CREDENTIALS'), ['storefront (Storefront): products:read, entries:read; token hidden', 'environment'])
  assert.match(res.body, /PLUGIN_GATEHOUSE_WEBHOOK_TIMEOUT_SECONDS=75 is above the maximum 60; using 60/, 'the clamp warning is shown')
  for (const secret of [ADMIN_TOKEN, LEGACY_TOKEN, CONFIGURED_TOKEN, WEBHOOK_SECRET, 'receiver-key-42', 'sig=abc']) {
    assert.ok(!res.body.includes(secret), `the page never shows ${secret}`)
  }

  // The link to docs/configuration.md works: the installed file, as plain text.
  assert.match(res.body, /<a href="\/gatehouse\/cp\/settings\/configuration.md">docs\/configuration.md<\/a>/)
  const doc = await s.page('/gatehouse/cp/settings/configuration.md')
  assert.equal(doc.statusCode, 200)
  assert.match(String(doc.headers['content-type']), /^text\/plain; charset=utf-8/)
  assert.equal(doc.body, readFileSync('docs/configuration.md', 'utf8'))
})

test('Settings hides the password of a database or Redis URL, and needs a session', async (t) => {
  const settings = loadSettings({
    PLUGIN_GATEHOUSE_DATABASE_URL: 'postgres://gatehouse:db-pass-123@db.internal:5432/gatehouse',
    PLUGIN_GATEHOUSE_REDIS_URL: 'redis://:redis-pass-456@cache.internal:6379/0',
  })
  const shown = new Map(settingEntries(settings).map((e) => [e.name, [e.value, e.source, e.masked]]))
  assert.deepEqual(shown.get('PLUGIN_GATEHOUSE_DATABASE_URL'), ['postgres://gatehouse:****@db.internal:5432/gatehouse', 'environment', true])
  assert.deepEqual(shown.get('PLUGIN_GATEHOUSE_REDIS_URL'), ['redis://:****@cache.internal:6379/0', 'environment', true])
  assert.deepEqual(shown.get('PLUGIN_GATEHOUSE_HOST'), ['127.0.0.1', 'default', false])

  const app = await panelApp()
  t.after(() => app.close())
  for (const url of ['/gatehouse/cp/settings', '/gatehouse/cp/settings/configuration.md']) {
    const res = await app.app.inject({ method: 'GET', url })
    assert.equal(res.statusCode, 303, url)
    assert.match(String(res.headers.location), /^\/gatehouse\/cp\/login/)
  }
})
