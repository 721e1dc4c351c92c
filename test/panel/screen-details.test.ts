// Details of the screens an operator reads (issue 29): Status names the managed admin tokens
// (not "not configured" while a gta_ token works) and each overdue workflow, linked; a
// delivery replayed after dead-lettering shows its attempts per round; incident actions show
// their commands as code; chart axes carry dates when the window crosses midnight.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startReceiver } from '../webhooks/helpers/receiver.js'
import { until } from '../helpers/until.js'
import { readSeries } from '../../src/ops/metric-buckets.js'
import { trafficCharts } from '../../src/panel/views/traffic-charts.js'
import { panelApp, signedIn } from './helpers/panel-client.js'

test('Status lists the managed admin tokens and names each overdue workflow with a link to it', async (t) => {
  const app = await panelApp({ PLUGIN_GATEHOUSE_JOBS_OVERDUE_GRACE_SECONDS: '60' })
  t.after(() => app.close())
  const s = await signedIn(app)
  const none = await s.page('/gatehouse/cp/status')
  assert.match(none.body, /<dd id="admin-tokens">none: the admin API cannot be used \(create one with gatehouse admin token create\)<\/dd>/)

  const { adminToken, token } = await app.services.adminTokens.create('Deploy <pipeline>', { type: 'cli', id: 'ops' })
  const revoked = await app.services.adminTokens.create('Old one', { type: 'cli', id: 'ops' })
  await app.services.adminTokens.revoke(revoked.adminToken.id, { type: 'cli', id: 'ops' })
  let now = Date.parse('2025-06-02T08:10:00Z')
  app.services.jobs.useClock(() => now)
  const { credential } = await app.services.credentials.create({ label: 'Worker', scopes: ['jobs:read', 'jobs:report'] })
  const w = await app.services.jobs.create({ name: 'Hourly <export>', templateKey: 'scheduled-catalog-sync', credentialId: credential.id, schedule: { cron: '0 * * * *', timezone: 'UTC' } }, { type: 'admin', id: 'ops' })
  now = Date.parse('2025-06-02T09:05:00Z')

  const status = await s.page('/gatehouse/cp/status')
  assert.match(status.body, new RegExp(`<dd id="admin-tokens">1 managed token active: <code>${adminToken.tokenHint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}</code> Deploy &lt;pipeline&gt;</dd>`))
  assert.ok(!status.body.includes(token), 'never the token itself')
  assert.doesNotMatch(status.body, /Old one|Admin tokens?<\/dt><dd>not configured/)
  assert.match(status.body, new RegExp(`<td>workflows</td><td><span class="badge warn">warn</span></td><td>1 workflow overdue \\(due for more than 60 s with no run started\\):\\s*<a href="/gatehouse/cp/jobs/${w.id}">Hourly &lt;export&gt;</a></td>`))
  // The API's readiness message names it too.
  const ops = await app.issueToken(['readiness:read'])
  const check = ((await app.get('/gatehouse/v1/readiness', ops)).json().data.checks as { name: string; message: string }[]).find((c) => c.name === 'workflows')
  assert.equal(check?.message, '1 workflow overdue (due for more than 60 s with no run started): Hourly <export>')
})

test('a replayed delivery shows its attempts by round; incident actions show commands as code', async (t) => {
  let answer = 503
  const receiver = await startReceiver('/hook', (_r, res) => { res.writeHead(answer).end() })
  t.after(() => receiver.close())
  const app = await panelApp({
    PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'screen-details-secret-0123456789', PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS: '2',
  }, { webhookWorker: { pollMs: 20, retryBaseMs: 20 } })
  t.after(() => app.close())
  const s = await signedIn(app)
  await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
  const failed = async () => app.database.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'failed').executeTakeFirst()
  await until(async () => (await failed()) !== undefined, 'the delivery is dead-lettered')
  const id = Number((await failed())?.id)

  await until(async () => /2 attempts recorded/.test((await s.page(`/gatehouse/cp/deliveries/${id}`)).body), 'both attempts logged')
  const first = await s.page(`/gatehouse/cp/deliveries/${id}`)
  assert.doesNotMatch(first.body, /data-round|First delivery/, 'one round: one untitled list')

  const incidents = await s.page('/gatehouse/cp/incidents')
  assert.match(incidents.body, /POST \/webhooks\/dlq\/replay with mode=all, or <code>gatehouse webhooks dlq replay --all<\/code>\./)
  assert.doesNotMatch(incidents.body, /`|&#96;/, 'no literal backticks')

  answer = 200
  await s.submit(`/gatehouse/cp/deliveries/${id}/replay`)
  // Attempts are logged in batches: wait for the replay's to be written.
  await until(async () => /3 attempts recorded/.test((await s.page(`/gatehouse/cp/deliveries/${id}`)).body), 'the replay is delivered and logged')
  const page = (await s.page(`/gatehouse/cp/deliveries/${id}`)).body
  const rounds = [...page.matchAll(/<h3 id="round-(\d)">([^<]+) <span class="muted">[^<]+, (\d) attempts?<\/span><\/h3>\s*<ol class="attempts" data-round="\d">([\s\S]*?)<\/ol>/g)]
    .map((m) => [m[2], Number(m[3]), [...m[4].matchAll(/<strong>Attempt (\d)<\/strong>/g)].map((x) => Number(x[1]))])
  assert.deepEqual(rounds, [['First delivery', 2, [1, 2]], ['Replay 1', 1, [1]]])
})

test('chart axes show the date when the window crosses midnight, the time alone when it does not', async (t) => {
  const app = await panelApp()
  t.after(() => app.close())
  const axis = async (range: 'hour' | 'day' | 'week', now: string) => {
    const markup = trafficCharts(await readSeries(app.database.db, { range, now: Date.parse(now) }), ['requests']).text
    return /<div class="x" aria-hidden="true"><span>([^<]*)<\/span><span>([^<]*)<\/span><\/div>/.exec(markup)?.slice(1)
  }
  assert.deepEqual(await axis('hour', '2025-06-02T14:30:00Z'), ['13:31', '14:30'])
  assert.deepEqual(await axis('hour', '2025-06-02T00:20:00Z'), ['06-01 23:21', '06-02 00:20'], 'an hour across midnight')
  const day = await axis('day', '2025-06-02T14:30:00Z')
  assert.match(day?.[0] ?? '', /^06-01 \d\d:\d\d$/)
  assert.match(day?.[1] ?? '', /^06-02 \d\d:\d\d$/)
  assert.match((await axis('week', '2025-06-02T14:30:00Z'))?.[0] ?? '', /^05-2[67] \d\d:\d\d$/)
})
