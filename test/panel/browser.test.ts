// The panel in a real browser (Debian's headless Chromium through playwright-core): log
// in, create a credential with checkboxes, read the token once, see the status screen.
// Also proves the pages need nothing from outside: every request the browser makes goes
// to the app itself, and the strict Content-Security-Policy reports no violation.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { chromium } from 'playwright-core'
import { ADMIN_PASSWORD, ADMIN_USER, panelApp } from './helpers/panel-client.js'

const CHROMIUM = process.env.GATEHOUSE_CHROMIUM ?? '/usr/bin/chromium'

test('an admin logs in, creates a credential and sees its token once, in a real browser', { skip: !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}` }, async (t) => {
  const app = await panelApp()
  t.after(() => app.close())
  const origin = await app.app.listen({ host: '127.0.0.1', port: 0 })
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--no-first-run', '--disable-component-update', '--disable-sync'],
  })
  t.after(() => browser.close())
  const page = await browser.newPage()
  const foreign: string[] = []
  const problems: string[] = []
  page.on('request', (r) => { if (!r.url().startsWith(origin)) foreign.push(r.url()) })
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()) })
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`) })

  await page.goto(`${origin}/gatehouse/cp/accounts`)
  assert.equal(new URL(page.url()).pathname, '/gatehouse/cp/login')
  // The stylesheet loaded under the CSP.
  assert.equal(await page.evaluate('getComputedStyle(document.body).margin'), '0px')
  await page.fill('input[name=username]', ADMIN_USER)
  await page.fill('input[name=password]', ADMIN_PASSWORD)
  await page.click('button[type=submit]')
  assert.equal(new URL(page.url()).pathname, '/gatehouse/cp/accounts')
  const cookies = await page.context().cookies()
  const session = cookies.find((c) => c.name === 'gatehouse_session')
  assert.equal(session?.httpOnly, true)
  assert.equal(session?.sameSite, 'Strict')

  await page.click('text=Create credential')
  await page.fill('input[name=label]', 'Browser <b>made</b>')
  await page.check('input[value="products:read"]')
  await page.check('input[value="product:updated"]')
  await page.click('button:has-text("Create credential")')
  const token = (await page.textContent('#new-token'))?.trim() ?? ''
  assert.match(token, /^gth_[A-Za-z0-9_-]{43}$/)
  assert.equal(await page.textContent('h1'), 'Credential created')

  await page.click('text=Done')
  assert.equal(await page.textContent('h1'), 'Browser <b>made</b>', 'the label is text, not markup')
  assert.equal((await page.content()).includes(token), false, 'the token is not shown again')
  const res = await fetch(`${origin}/gatehouse/v1/products`, { headers: { authorization: `Bearer ${token}` } })
  assert.equal(res.status, 200)

  await page.click('nav >> text=Status')
  assert.match(await page.textContent('#readiness h2') ?? '', /Readiness/)
  await page.click('button:has-text("Log out")')
  assert.equal(new URL(page.url()).pathname, '/gatehouse/cp/login')
  await page.goto(`${origin}/gatehouse/cp/status`)
  assert.equal(new URL(page.url()).pathname, '/gatehouse/cp/login')

  assert.deepEqual(foreign, [], 'no request leaves the app')
  assert.deepEqual(problems, [], 'no failed loads and no console errors (CSP violations show there)')
})
