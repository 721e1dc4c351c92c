// The panel in a real browser (Debian's headless Chromium through playwright-core), one
// browser and one page for the whole file: log in, then each screen is used as an operator
// would and what it shows is checked: Accounts (token shown once, errors next to fields),
// Status (traffic charts, counts that link), Deliveries (dead-letter filter, attempts, replay
// of one and by filter), Integrations, Incidents and Policies (form errors, edit, simulator).
// Every screen is also loaded at 390 px and must not overflow sideways; screenshots at 390
// and 1280 px go to test-results/panel/ (ignored by git). Requests to anything but
// 127.0.0.1 are refused and fail the test, and so does any console error (CSP violations
// show there) or failed stylesheet, icon or other subresource.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { ADMIN_PASSWORD, ADMIN_USER, panelApp } from './helpers/panel-client.js'
import { startReceiver } from '../webhooks/helpers/receiver.js'
import { until } from '../helpers/until.js'
import { launchChromium, noChromium } from '../helpers/browser.js'

const SHOTS = 'test-results/panel'
const SECRET = 'browser-test-webhook-secret-0123456789'
const DESKTOP = { width: 1280, height: 900 }
const PHONE = { width: 390, height: 844 }


/** The page at 390 px: nothing wider than the screen; then screenshots at both widths. */
async function shoot(page: Page, name: string): Promise<void> {
  await page.setViewportSize(PHONE)
  // Let the narrow layout settle (media queries apply on the next frames).
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))')
  const overflow = await page.evaluate('document.documentElement.scrollWidth') as number
  if (overflow > PHONE.width) {
    // Name the widest elements, so a failure says what to fix.
    const wide = await page.evaluate(`[...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > ${PHONE.width} + 1)
      .slice(-3).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right) + ': ' + (e.textContent || '').slice(0, 60))`)
    assert.fail(`${name}: the page is ${overflow} px wide at ${PHONE.width} px; widest: ${JSON.stringify(wide)}`)
  }
  await page.screenshot({ path: `${SHOTS}/${name}-390.png`, fullPage: true })
  await page.setViewportSize(DESKTOP)
  await page.screenshot({ path: `${SHOTS}/${name}-1280.png`, fullPage: true })
}

/** What the element shows (innerText: laid out, so cells and spans are separated), with whitespace collapsed. */
const text = async (page: Page, selector: string) => (await page.innerText(selector)).replace(/\s+/g, ' ').trim()
const path = (page: Page) => { const u = new URL(page.url()); return `${u.pathname}${u.search}` }

test('the operator console in a real browser: every screen, at 390 px and on the desktop', { skip: noChromium }, async (t) => {
  mkdirSync(SHOTS, { recursive: true })
  let answer = 500
  const receiver = await startReceiver('/hook', (_r, res) => { res.writeHead(answer, { 'content-type': 'application/json' }).end(answer === 200 ? '{"received":true}' : '{"error":"receiver down"}') })
  t.after(() => receiver.close())
  const app = await panelApp({
    PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true', PLUGIN_GATEHOUSE_WEBHOOK_URL: receiver.url, PLUGIN_GATEHOUSE_WEBHOOK_SECRET: SECRET,
    PLUGIN_GATEHOUSE_WEBHOOK_MAX_ATTEMPTS: '1', PLUGIN_GATEHOUSE_INCIDENT_WINDOW_SECONDS: '600',
  }, { webhookWorker: { pollMs: 20, retryBaseMs: 20 } })
  t.after(() => app.close())
  const origin = await app.app.listen({ host: '127.0.0.1', port: 0 })
  const browser = await launchChromium()
  t.after(() => browser.close())
  const context = await browser.newContext({ viewport: DESKTOP })
  const foreign: string[] = []
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url())
    if (url.hostname === '127.0.0.1') return route.continue()
    foreign.push(url.href)
    return route.abort()
  })
  const page = await context.newPage()
  const problems: string[] = []
  // A form with errors is answered 400 on purpose; Chromium logs each such page as a failed load.
  let formErrorPages = 0
  page.on('console', (m) => {
    if (m.type() !== 'error') return
    if (/^Failed to load resource: the server responded with a status of 400/.test(m.text()) && formErrorPages > 0) formErrorPages--
    else problems.push(m.text())
  })
  page.on('response', (r) => { if (r.status() === 400 && r.request().resourceType() === 'document') formErrorPages++ })
  page.on('pageerror', (e) => problems.push(e.message))
  page.on('response', (r) => { if (r.status() >= 400 && r.request().resourceType() !== 'document') problems.push(`${r.status()} ${r.url()}`) })
  const go = (p: string) => page.goto(`${origin}/gatehouse/cp${p}`)
  const { store, credentials } = app.services

  await t.test('login, then Accounts: create a credential, the token once, errors next to their fields', async () => {
    await go('/accounts')
    assert.equal(new URL(page.url()).pathname, '/gatehouse/cp/login')
    assert.equal(await page.evaluate('getComputedStyle(document.body).margin'), '0px', 'the stylesheet loaded under the CSP')
    await shoot(page, 'login')
    await page.fill('input[name=username]', ADMIN_USER)
    await page.fill('input[name=password]', ADMIN_PASSWORD)
    await page.click('button[type=submit]')
    assert.equal(path(page), '/gatehouse/cp/accounts')
    const session = (await context.cookies()).find((c) => c.name === 'gatehouse_session')
    assert.equal(session?.httpOnly, true)
    assert.equal(session?.sameSite, 'Strict')
    assert.deepEqual(await page.locator('header nav a').allTextContents(), ['Status', 'Integrations', 'Deliveries', 'Incidents', 'Jobs', 'Accounts', 'Approvals', 'Policies', 'Audit', 'Settings'])
    assert.equal(await page.getAttribute('header nav a[aria-current=page]', 'href'), '/gatehouse/cp/accounts')

    await page.click('text=Create credential')
    await page.click('button:has-text("Create credential")')
    assert.equal(await text(page, '#field-label + p.field-error'), 'Give the credential a label of up to 200 characters, so people can tell what uses it.')
    assert.equal(await text(page, '#field-scopes p.field-error'), 'Choose at least one scope: the credential can do nothing without one.')
    assert.equal(await page.getAttribute('input[name=label]', 'aria-describedby'), 'error-label')
    assert.match(await text(page, '.flash.error'), /2 fields need attention: Label, Scopes\./)
    await shoot(page, 'accounts-form-errors')

    await page.fill('input[name=label]', 'Browser <b>made</b>')
    await page.check('input[value="products:read"]')
    await page.check('input[value="product:updated"]')
    await page.click('button:has-text("Create credential")')
    const token = await text(page, '#new-token')
    assert.match(token, /^gth_[A-Za-z0-9_-]{43}$/)
    assert.equal(await text(page, 'h1'), 'Credential created')
    await page.click('text=Done')
    assert.equal(await text(page, 'h1'), 'Browser <b>made</b>', 'the label is text, not markup')
    assert.equal((await page.content()).includes(token), false, 'the token is not shown again')
    assert.equal((await fetch(`${origin}/gatehouse/v1/products`, { headers: { authorization: `Bearer ${token}` } })).status, 200)
    await page.click('nav >> text=Accounts')
    await shoot(page, 'accounts')
  })

  // Traffic and deliveries for the other screens: an integration that reads, is refused a
  // scope and keeps a checkpoint; products whose deliveries fail; clients with bad tokens.
  const sync = await credentials.create({
    label: 'Catalog sync', scopes: ['products:read', 'changes:read', 'syncstate:write'],
    webhookInterests: [{ resourceType: 'product', actions: ['created', 'updated'] }],
  })
  const call = (url: string, token: string, init: RequestInit = {}) => fetch(`${origin}/gatehouse/v1${url}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } })
  for (let i = 0; i < 6; i++) assert.equal((await call('/products', sync.token)).status, 200)
  for (let i = 0; i < 2; i++) assert.equal((await call('/orders', sync.token)).status, 403)
  assert.equal((await call('/sync-state/checkpoint', sync.token, { method: 'POST', body: JSON.stringify({ resourceType: 'products' }) })).status, 200)
  await store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' })
  await store.create('products', { type: 'mug', title: 'Cup', slug: 'cup' })
  await until(async () => (await app.database.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'failed').execute()).length === 2, 'two dead letters')
  for (let i = 0; i < 12; i++) assert.equal((await call('/products', 'gth_not-a-real-token')).status, 401)

  await t.test('Status: traffic charts, and counts that link to their pages', async () => {
    await go('/status')
    assert.match(await text(page, '#chart-requests figcaption'), /Requests per minute \(UTC\): 22 requests in all/)
    assert.ok(await page.locator('#chart-requests svg rect.s-ok').count() >= 1)
    assert.ok(await page.locator('#chart-requests svg rect.s-warn').count() >= 1, '4xx answers are drawn')
    assert.match(await text(page, '#chart-deliveries figcaption'), /0 delivered, 2 failed attempts, 2 dead-lettered/)
    assert.ok(await page.locator('#chart-latency svg polyline, #chart-latency svg line.line').count() >= 1)
    // Error rate: the 2 scope denials and 12 bad tokens of 22 requests.
    assert.match(await text(page, '#chart-errors figcaption'), /Error rate share of requests answered 4xx or 5xx, per minute \(UTC\): [\d.]+% \(14 errors\)/)
    assert.ok(await page.locator('#chart-errors svg polyline, #chart-errors svg line.line').count() >= 1)
    // At 390 px the brand and the logout button share the first row; the navigation wraps below, inside the screen.
    await page.setViewportSize(PHONE)
    const box = async (sel: string) => { const b = await page.locator(sel).boundingBox(); assert.ok(b, sel); return b }
    const [brand, who, nav] = [await box('header .brand'), await box('header .who'), await box('header nav')]
    assert.ok(Math.abs((brand.y + brand.height / 2) - (who.y + who.height / 2)) < 8, `brand at ${brand.y}, logout at ${who.y}`)
    assert.ok(nav.y >= who.y + who.height - 1 && nav.x + nav.width <= PHONE.width, JSON.stringify(nav))
    await page.setViewportSize(DESKTOP)
    assert.match(await text(page, '#readiness'), /2 dead-lettered deliveries wait for replay/)
    await shoot(page, 'status')
    await page.click('#traffic >> text=Last 7 days')
    assert.equal(path(page), '/gatehouse/cp/status?range=week')
    assert.equal(await text(page, '.ranges a[aria-current]'), 'Last 7 days')
    assert.match(await text(page, '#chart-requests figcaption'), /per 3 hours/)
    await page.click('#readiness >> text=2 dead-lettered deliveries wait for replay')
    assert.equal(path(page), '/gatehouse/cp/deliveries?status=failed')
  })

  await t.test('Deliveries: the dead-letter filter, attempts with headers and answers, replay one and by filter', async () => {
    assert.equal(await page.locator('#log tbody tr').count(), 2)
    assert.equal(await page.inputValue('select[name=status]'), 'failed')
    assert.match(await text(page, '.quick'), /Dead-letter queue: 2 dead-lettered deliveries/)
    await shoot(page, 'deliveries-dead-letters')
    const first = (await page.locator('#log tbody tr td a').last().textContent()) ?? ''
    await page.click(`#log a[href="/gatehouse/cp/deliveries/${first}"]`)
    assert.equal(path(page), `/gatehouse/cp/deliveries/${first}`)
    assert.match(await text(page, '.attempt-head'), /Attempt 1 dead-lettered HTTP 500 \d+ ms/)
    await page.click('text=Headers sent')
    assert.match(await text(page, '.attempt .headers'), /x-gatehouse-webhook-signature sha256=[0-9a-f]{64}/)
    assert.equal((await page.content()).includes(SECRET), false, 'the secret is never shown')
    await page.click('.attempt summary:has-text("Answer")')
    assert.equal(await text(page, '.attempt pre'), '{"error":"receiver down"}')
    assert.match(await text(page, '#payload pre'), /"resourceType": "product"/)
    await shoot(page, 'delivery')

    answer = 200
    const before = receiver.received.length
    await page.click('button:has-text("Replay")')
    assert.match(await text(page, '.flash.ok'), new RegExp(`Delivery ${first} queued to be sent again\\.`))
    await receiver.waitFor((r) => r.length > before)
    // Its attempt is written a moment after the delivery's status (the attempt log is batched).
    await until(async () => { await page.reload(); return (await text(page, '.kv dd')).startsWith('delivered') && /2 attempts recorded/.test(await text(page, '#attempts')) }, 'the replayed delivery delivered and its attempt logged')
    assert.match(await text(page, '#attempts'), /2 attempts recorded.*Attempt 1 delivered HTTP 200/)

    await go('/deliveries?status=failed')
    await page.click('text=Replay these…')
    assert.match(await text(page, 'main section'), /Filter: status failed\. 1 delivered or dead-lettered delivery matches\./)
    await shoot(page, 'deliveries-replay-confirm')
    await page.click('button:has-text("Replay 1 delivery")')
    assert.equal(path(page), '/gatehouse/cp/deliveries?status=failed')
    assert.equal(await text(page, '.flash.ok'), 'Replayed 1 delivery: queued to be sent again.')
    await until(async () => (await app.database.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'delivered').execute()).length === 2, 'both delivered')
    await page.selectOption('select[name=status]', 'delivered')
    await page.selectOption('select[name=credential]', sync.credential.id)
    await page.click('button:has-text("Filter")')
    assert.equal(path(page), `/gatehouse/cp/deliveries?status=delivered&credential=${sync.credential.id}`, 'empty filters leave the link')
    assert.equal(await page.locator('#log tbody tr').count(), 2)
    await shoot(page, 'deliveries')
  })

  await t.test('Integrations: traffic, refusals, checkpoint lag, deliveries routed and lifecycle', async () => {
    await page.click('nav >> text=Integrations')
    const row = page.locator('tr', { has: page.locator('a:has-text("Catalog sync")') })
    assert.match(await text(page, `tr:has(a:has-text("Catalog sync"))`), /Catalog sync active 9 2 \(0 5xx\) 2 0/)
    assert.equal(await row.count(), 1)
    await shoot(page, 'integrations')
    await page.click('text=Catalog sync')
    assert.equal(path(page), `/gatehouse/cp/integrations/${sync.credential.id}`)
    assert.equal(await text(page, '#scope-denials'), '2')
    assert.equal(await text(page, '#rate-limited'), '0')
    assert.match(await text(page, '#summary'), /Last used \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z/)
    assert.match(await text(page, '#webhooks'), /Interests product: created, updated/)
    assert.match(await text(page, '#sync'), /products 2 changes/)
    assert.ok(await page.locator('#chart-requests svg rect').count() >= 1)
    assert.match(await text(page, '#lifecycle'), /Recommended:/)
    await shoot(page, 'integration')
    await page.click('text=2 deliveries in the last 24 hours')
    assert.equal(path(page), `/gatehouse/cp/deliveries?credential=${sync.credential.id}&since=24h`)
    assert.equal(await page.locator('#log tbody tr').count(), 2)
  })

  await t.test('Incidents: the open incident with its signal, thresholds and action; Status links to it', async () => {
    await go('/status')
    assert.match(await text(page, '#readiness a[href="/gatehouse/cp/incidents"]'), /^\d+ open incidents?$/)
    await page.click('#readiness a[href="/gatehouse/cp/incidents"]')
    assert.equal(path(page), '/gatehouse/cp/incidents')
    const card = await text(page, 'section.incident')
    assert.match(card, /Many requests present a token that fails authentication/)
    assert.match(card, /auth_failures_in_window over 10 min: now 12/)
    assert.match(card, /warn 10 or more and at least 10% of the window's traffic/)
    assert.match(card, /Recommended action: Check \/lifecycle/)
    await shoot(page, 'incidents')
  })

  await t.test('Policies: errors next to their fields, create, edit, and the simulator', async () => {
    const product = await store.create('products', { type: 'mug', title: 'Bowl', slug: 'bowl' }) as { id: number }
    const variant = await store.create('variants', { productId: product.id, sku: 'BOWL', title: 'Bowl', price: 10, stock: 3 }) as { id: number }
    const agent = await credentials.create({ label: 'Pricing agent', scopes: ['control:actions:execute', 'control:actions:simulate'] })
    await page.click('nav >> text=Policies')
    assert.match(await text(page, 'table'), /Built-in default/)
    await page.click('text=New policy')
    await page.fill('input[name=handle]', 'Prices Big')
    await page.fill('input[name=displayName]', 'Big price changes')
    await page.fill('input[name=actionPattern]', 'nothing.*')
    await page.fill('input[name=approvalTtlMinutes]', 'soon')
    await page.click('button:has-text("Create policy")')
    assert.match(await text(page, '#error-handle'), /^Use 1 to 100 lower-case letters/)
    assert.match(await text(page, '#error-approvalTtlMinutes'), /^Write a number of minutes from 0\.01 to 43,200/)
    await shoot(page, 'policy-form-errors')
    await page.fill('input[name=handle]', 'prices-big')
    await page.fill('input[name=approvalTtlMinutes]', '30')
    await page.click('button:has-text("Create policy")')
    assert.match(await text(page, '#error-actionPattern'), /^This matches no action\. Actions are .*variant\.setPrice/)
    await page.fill('input[name=actionPattern]', 'variant.setPrice')
    await page.uncheck('input[name=requiresApproval]')
    await page.fill('input[name=maxPriceChangePercent]', '20')
    await page.click('button:has-text("Create policy")')
    assert.equal(path(page), '/gatehouse/cp/policies')
    assert.equal(await text(page, '.flash.ok'), 'Created policy prices-big.')
    assert.match(await text(page, 'tr:has-text("prices-big")'), /variant\.setPrice enabled not required action default — price change ≤ 20%/)
    await shoot(page, 'policies')
    await page.click('text=Big price changes')
    await page.fill('input[name=maxPriceChangePercent]', '25')
    await page.click('button:has-text("Save policy")')
    assert.equal(await text(page, '.flash.ok'), 'Saved policy prices-big.')
    const [stored] = await app.services.control.policies.list()
    assert.equal(stored.limits.maxPriceChangePercent, 25)
    assert.equal(stored.updatedBy, `admin:${ADMIN_USER}`)

    await page.click('text=Simulate an action')
    await page.selectOption('select[name=actionType]', 'variant.setPrice')
    await page.selectOption('select[name=credentialId]', agent.credential.id)
    await page.fill('textarea[name=payload]', '{"variantId": oops}')
    await page.click('button:has-text("Simulate")')
    assert.match(await text(page, '#error-payload'), /^Write the payload as a JSON object/)
    await page.fill('textarea[name=payload]', JSON.stringify({ variantId: variant.id, price: 50 }))
    await page.click('button:has-text("Simulate")')
    const result = await text(page, '#simulation')
    assert.match(result, /Result: Would be blocked/)
    assert.match(result, /Deciding policy prices-big \(variant\.setPrice\)/)
    assert.match(result, /maxPriceChangePercent policy 25 400 over/)
    await shoot(page, 'policy-simulator')
  })

  await t.test('Approvals and Audit still render, and logging out ends the session', async () => {
    await page.click('nav >> text=Approvals')
    await shoot(page, 'approvals')
    await page.click('nav >> text=Audit')
    assert.match(await text(page, '#audit-verification'), /Chain verified/)
    await shoot(page, 'audit')
    await page.click('button:has-text("Log out")')
    assert.equal(new URL(page.url()).pathname, '/gatehouse/cp/login')
    await go('/status')
    assert.equal(new URL(page.url()).pathname, '/gatehouse/cp/login')
  })

  assert.deepEqual(foreign, [], 'no request leaves 127.0.0.1')
  assert.deepEqual(problems, [], 'no console errors and no failed subresources')
})
