// The browser tests' Chromium: Debian's headless build through playwright-core (no download),
// at GATEHOUSE_CHROMIUM or /usr/bin/chromium; without one the tests are skipped, saying why.
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

export const CHROMIUM = process.env.GATEHOUSE_CHROMIUM ?? '/usr/bin/chromium'

/** A test's `skip` option: false when Chromium is there, else the reason. */
export const noChromium: string | false = !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`

/** Headless Chromium that reaches out to nothing by itself (no updates, sync or background fetches). */
export const launchChromium = (): Promise<Browser> => chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--no-first-run', '--disable-component-update', '--disable-sync'],
})
