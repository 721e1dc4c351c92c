// The Jobs screen in a real browser (Debian's headless Chromium through playwright-core):
// reach it from the navigation, create a workflow through the form (a bad cron expression is
// shown beside its field first), see it listed with its schedule and next due time, pause it.
// Every request stays on the app and the strict Content-Security-Policy reports nothing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ADMIN_PASSWORD, ADMIN_USER, panelApp } from './helpers/panel-client.js'
import { launchChromium, noChromium } from '../helpers/browser.js'

test('an admin creates and pauses a workflow on the Jobs screen, in a real browser', { skip: noChromium }, async (t) => {
  const app = await panelApp()
  t.after(() => app.close())
  app.services.jobs.useClock(() => Date.parse('2025-06-02T08:10:00Z'))
  const { credential } = await app.services.credentials.create({ label: 'Catalog worker', scopes: ['jobs:read', 'jobs:report'] })
  const origin = await app.app.listen({ host: '127.0.0.1', port: 0 })
  const browser = await launchChromium()
  t.after(() => browser.close())
  const page = await browser.newPage()
  const foreign: string[] = []
  const problems: string[] = []
  page.on('request', (r) => { if (!r.url().startsWith(origin)) foreign.push(r.url()) })
  // The refused form is answered 400 on purpose (Chromium logs that as a console error); nothing else may fail.
  const refusedForm = (status: number, url: string) => status === 400 && url.endsWith('/gatehouse/cp/jobs')
  page.on('console', (m) => { if (m.type() === 'error' && !/status of 400 \(Bad Request\)/.test(m.text())) problems.push(m.text()) })
  page.on('response', (r) => { if (r.status() >= 400 && !refusedForm(r.status(), r.url())) problems.push(`${r.status()} ${r.url()}`) })

  await page.goto(`${origin}/gatehouse/cp/login`)
  await page.fill('input[name=username]', ADMIN_USER)
  await page.fill('input[name=password]', ADMIN_PASSWORD)
  await page.click('button[type=submit]')
  await page.click('nav >> text=Jobs')
  assert.equal(new URL(page.url()).pathname, '/gatehouse/cp/jobs')
  assert.equal(await page.getAttribute('nav a[aria-current=page]', 'href'), '/gatehouse/cp/jobs')

  await page.click('text=Create workflow')
  await page.fill('input[name=name]', 'Nightly catalog sync')
  await page.selectOption('select[name=credentialId]', credential.id)
  await page.fill('input[name=cron]', '30 2 * * 8')
  await page.fill('input[name=timezone]', 'Europe/Berlin')
  await page.fill('input[name=sections]', 'news')
  await page.click('button:has-text("Create workflow")')
  assert.equal(await page.textContent('#error-cron'), 'Write five fields: minute, hour, day of month, month and day of week; 30 2 * * * is 02:30 every day (here: day of week 8 (in "8") is outside 0–7).')
  assert.equal(await page.inputValue('input[name=timezone]'), 'Europe/Berlin', 'the other values are kept')

  await page.fill('input[name=cron]', '30 2 * * *')
  await page.click('button:has-text("Create workflow")')
  assert.equal(await page.textContent('h1'), 'Nightly catalog sync')
  assert.match(await page.textContent('.flash') ?? '', /next due 2025-06-03T00:30:00.000Z/, '02:30 in Berlin is 00:30 UTC in summer')

  await page.click('nav >> text=Jobs')
  const row = page.locator('#workflows tbody tr')
  assert.equal(await row.count(), 1)
  const text = (await row.textContent()) ?? ''
  assert.match(text, /Nightly catalog sync/)
  assert.match(text, /30 2 \* \* \*\s*Europe\/Berlin/)
  assert.match(text, /2025-06-03 00:30:00Z/)
  assert.match(text, /none yet/)

  await row.locator('button:has-text("Pause")').click()
  assert.match(await page.textContent('.flash') ?? '', /now paused/)
  await page.click('nav >> text=Jobs')
  assert.match((await page.locator('#workflows tbody tr').textContent()) ?? '', /paused/)

  assert.deepEqual(foreign, [], 'no request leaves the app')
  assert.deepEqual(problems, [], 'no failed loads and no console errors (CSP violations show there)')
})
