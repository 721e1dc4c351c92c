// Every panel screen fits its viewport (docs/control-panel.md, Narrow screens): with real data
// on every screen (workflows with runs, audit records, dead-lettered and replayed deliveries,
// open incidents, credentials with long labels), each page is loaded in headless Chromium at
// 390 and 1280 px and the document may not be wider than the window: wide content scrolls
// inside its box. Jobs' rows keep their Pause button on screen at 390 px.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { chromium, type Page } from 'playwright-core'
import { ADMIN_PASSWORD, ADMIN_USER, panelApp } from './helpers/panel-client.js'
import { startReceiver } from '../webhooks/helpers/receiver.js'
import { until } from '../helpers/until.js'
import { appendAudit } from '../../src/control/audit-log.js'

const CHROMIUM = process.env.GATEHOUSE_CHROMIUM ?? '/usr/bin/chromium'
const WIDTHS = [390, 1280] as const

/** The document's width, and (when too wide) the elements reaching furthest right, to say what to fix. */
async function measure(page: Page, width: number): Promise<{ scrollWidth: number; widest: string[] }> {
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))')
  const scrollWidth = await page.evaluate('document.documentElement.scrollWidth') as number
  const widest = scrollWidth <= width ? [] : await page.evaluate(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > ${width} + 1)
    .slice(-3).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right) + ': ' + (e.textContent || '').slice(0, 50))`) as string[]
  return { scrollWidth, widest }
}

test('no panel screen is wider than the viewport at 390 or 1280 px, with real data on every screen', { skip: !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}` }, async (t) => {
  let answer = 500
  const receiver = await startReceiver('/hook', (_r, res) => { res.writeHead(answer).end() })
  t.after(() => receiver.close())
  const app = await panelApp({
    PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true', PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: 'layout-test-secret-0123456789abcdef',
    PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS: '1', PLUGIN_GATEHOUSE_JOBS_OVERDUE_GRACE_SECONDS: '0',
  }, { webhookWorker: { pollMs: 20, retryBaseMs: 20 } })
  t.after(() => app.close())

  // Real data: credentials (one with a long label), a workflow with runs, deliveries dead-lettered
  // (an open incident) and one replayed, audit records of all of it.
  const { credential, token } = await app.services.credentials.create({ label: 'Nightly catalog synchronisation worker for the warehouse', scopes: ['jobs:read', 'jobs:report', 'products:read'], ipAllowlist: ['127.0.0.0/8', '10.0.0.0/8'] })
  await app.services.credentials.create({ label: 'Storefront', scopes: ['products:read', 'entries:read'], boundaries: { sections: ['news'], entryIds: [], productIds: [] } })
  const admin = { type: 'admin' as const, id: ADMIN_USER }
  const hourly = await app.services.jobs.create({ name: 'Hourly catalog export to the warehouse', templateKey: 'scheduled-catalog-sync', credentialId: credential.id, schedule: { cron: '* * * * *', timezone: 'Europe/Berlin' }, boundary: { sections: ['news', 'blog'], entryIds: [1, 2, 3], productIds: [4, 5] }, config: { destination: 'warehouse-eu-central-1', batchSize: 500 } }, admin)
  await app.services.jobs.create({ name: 'Nightly', templateKey: 'catalog-sync', credentialId: credential.id, schedule: { cron: '30 2 * * *', timezone: 'UTC' } }, admin)
  // Two minutes on: the minute workflow is due (and overdue: no grace), with no waiting.
  app.services.jobs.useClock(() => Date.now() + 120_000)
  const started = await app.post('/gatehouse/v1/workflows/run-report', { workflowId: hourly.id, status: 'started', workerId: 'sync-worker-eu-central-1a-7f9c' }, token)
  assert.equal(started.statusCode, 200, started.body)
  await app.post('/gatehouse/v1/workflows/run-report', { workflowId: hourly.id, runId: started.json().data.id, workerId: 'sync-worker-eu-central-1a-7f9c', status: 'succeeded', summary: 'synced 2 products', outcomeRefs: [{ type: 'product', id: '4' }, { type: 'product', id: '5' }] }, token)
  await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
  await app.services.store.create('products', { type: 'mug', title: 'Cup', slug: 'cup' })
  const failed = async () => app.database.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'failed').orderBy('id').execute()
  await until(async () => (await failed()).length === 2, 'two dead letters')
  const [dead, replayed] = (await failed()).map((r) => Number(r.id))

  // An audit record naming an entity by a long unbreakable id (what made Audit 1,382 px wide at 1280 px).
  await appendAudit(app.database.db, { category: 'credential', action: 'credential.rotate', outcome: 'success', actor: { type: 'cli', id: 'ops' }, entity: { type: 'credential', id: `cred_${'x7Qa'.repeat(40)}` }, summary: 'Rotated the token of a credential with a very long id' })
  const origin = await app.app.listen({ host: '127.0.0.1', port: 0 })
  const browser = await chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--no-first-run', '--disable-component-update', '--disable-sync'],
  })
  t.after(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  await page.goto(`${origin}/gatehouse/cp/login`)
  await page.fill('input[name=username]', ADMIN_USER)
  await page.fill('input[name=password]', ADMIN_PASSWORD)
  await page.click('button[type=submit]')
  // One delivery replayed (its attempts then come in rounds), through the page's own button.
  answer = 200
  await page.goto(`${origin}/gatehouse/cp/deliveries/${replayed}`)
  await page.click('button:has-text("Replay")')
  await until(async () => (await app.database.db.selectFrom('webhook_deliveries').select('status').where('id', '=', replayed).executeTakeFirstOrThrow()).status === 'delivered', 'the replay')
  answer = 500

  const screens = [
    '/status', '/status?range=week', `/status/dlq/${dead}`, '/integrations', `/integrations/${credential.id}`, '/deliveries', '/deliveries?status=failed',
    `/deliveries/${dead}`, `/deliveries/${replayed}`, '/deliveries/replay?status=failed', '/incidents', '/jobs', '/jobs/new', `/jobs/${hourly.id}`,
    '/accounts', '/accounts/new', `/accounts/${credential.id}`, `/accounts/${credential.id}/confirm/revoke`,
    '/approvals', '/policies', '/policies/new', '/policies/simulate', '/audit', '/settings',
  ]
  const tooWide: string[] = []
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 })
    for (const screen of screens) {
      const res = await page.goto(`${origin}/gatehouse/cp${screen}`)
      assert.equal(res?.status(), 200, screen)
      const { scrollWidth, widest } = await measure(page, width)
      if (scrollWidth > width) tooWide.push(`${screen} at ${width} px is ${scrollWidth} px wide; widest: ${JSON.stringify(widest)}`)
    }
  }
  assert.deepEqual(tooWide, [], 'every screen fits its viewport')

  // At 390 px a workflow's row actions stay on screen (each row is a card), not past the edge.
  await page.setViewportSize({ width: 390, height: 900 })
  await page.goto(`${origin}/gatehouse/cp/jobs`)
  const pause = page.locator(`tr[data-workflow="${hourly.id}"] button:has-text("Pause")`)
  const box = await pause.boundingBox()
  assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `the Pause button is within the screen: ${JSON.stringify(box)}`)
  await pause.click()
  assert.match(await page.textContent('.flash') ?? '', /now paused/)
})
