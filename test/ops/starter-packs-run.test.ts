// Every starter-pack snippet runs against a live server on a real port: the Node snippets
// with plain `node`, the curl snippets with `sh`, the Python ones with `python3` when it is
// installed. The cache-refresh receivers get real signed deliveries from the webhook worker.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { buildTestApp, type TestApp } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { freePort } from '../helpers/free-port.js'
import { hasPython, runSnippet, SNIPPET_COMMAND as COMMAND } from '../helpers/snippets.js'

interface Pack { templateId: string; available: boolean; requiredScopes: string[]; snippets: { language: 'curl' | 'node' | 'python'; filename: string; content: string }[] }

const SECRET = 'starter-pack-webhook-secret'

/** Starts a receiver snippet and resolves once it listens; collects its output. */
async function startReceiver(dir: string, language: 'node' | 'python', filename: string, env: Record<string, string>) {
  const child: ChildProcess = spawn(COMMAND[language], [join(dir, filename)], { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout?.on('data', (d) => { out += String(d) })
  child.stderr?.on('data', (d) => { out += String(d) })
  // A minute: python3 took more than 10 s to start on a loaded machine.
  const until = Date.now() + 60_000
  while (!out.includes('receiver listening')) {
    if (Date.now() > until || child.exitCode !== null) throw new Error(`${filename} did not start: ${out}`)
    await sleep(20)
  }
  // Stopped with SIGTERM, SIGKILL if it has not ended 5 s later; at once if it already has.
  const stop = () => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000)
    child.once('exit', () => { clearTimeout(kill); resolve() })
    child.kill()
  })
  return { output: () => out, stop }
}

async function waitForOutput(what: RegExp, output: () => string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!what.test(output())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${output()}`)
    await sleep(25)
  }
}

// Bounded: a receiver that stops answering (the Python one serves one connection at a time)
// once held the whole run for twenty minutes. Every request to a receiver has its own limit too.
test('every starter-pack snippet runs against a live server', { timeout: 300_000 }, async () => {
  const receiverPort = await freePort()
  const app: TestApp = await buildTestApp({
    dialect: 'sqlite',
    env: {
      PLUGIN_GATEHOUSE_WEBHOOK_URL: `http://127.0.0.1:${receiverPort}/hooks`,
      PLUGIN_GATEHOUSE_WEBHOOK_SECRET: SECRET,
      PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true',
    },
    webhookWorker: { pollMs: 20, retryBaseMs: 50 },
  })
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-packs-'))
  const stops: (() => Promise<void>)[] = []
  try {
    await app.app.listen({ port: 0, host: '127.0.0.1' })
    const baseUrl = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`
    const packs = (await app.get('/gatehouse/v1/starter-packs', await app.issueToken(['templates:read']))).json().data as Pack[]
    for (const p of packs) for (const s of p.snippets) writeFileSync(join(dir, s.filename), s.content)
    const pack = (id: string) => packs.find((p) => p.templateId === id) as Pack
    const file = (id: string, language: 'curl' | 'node' | 'python') => pack(id).snippets.find((s) => s.language === language)?.filename as string
    const envFor = async (id: string, extra: Record<string, string> = {}) => ({
      GATEHOUSE_BASE_URL: baseUrl, GATEHOUSE_TOKEN: await app.issueToken(pack(id).requiredScopes), ...extra,
    })

    // The cache-refresh receiver (Node) listens before any content exists, so every delivery of
    // the seed reaches it, signed by the real worker.
    const nodeReceiver = await startReceiver(dir, 'node', file('webhook-cache-refresh', 'node'), await envFor('webhook-cache-refresh', { GATEHOUSE_WEBHOOK_SECRET: SECRET, RECEIVER_PORT: String(receiverPort) }))
    stops.push(nodeReceiver.stop)
    const { ids } = await seedSmallCatalog(app.services.store)
    await waitForOutput(new RegExp(`refreshed product ${ids.products} \\(created\\)`), nodeReceiver.output)
    await waitForOutput(/refreshed order \d+ \(created\)/, nodeReceiver.output)
    // It refuses an unsigned delivery.
    const forged = await fetch(`http://127.0.0.1:${receiverPort}/hooks`, { method: 'POST', body: '{"resourceType":"product","resourceId":1,"action":"deleted"}', headers: { 'x-gatehouse-webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'x-gatehouse-webhook-signature': 'sha256=00' }, signal: AbortSignal.timeout(30_000) })
    assert.equal(forged.status, 401)
    await nodeReceiver.stop()
    stops.pop()

    if (hasPython) {
      // The Python receiver takes over the port and gets the next delivery.
      const py = await startReceiver(dir, 'python', file('webhook-cache-refresh', 'python'), await envFor('webhook-cache-refresh', { GATEHOUSE_WEBHOOK_SECRET: SECRET, RECEIVER_PORT: String(receiverPort) }))
      stops.push(py.stop)
      await app.services.store.update('products', ids.products, { title: 'Blue shirt v2' })
      await waitForOutput(new RegExp(`refreshed product ${ids.products} \\(updated\\)`), py.output)
      const bad = await fetch(`http://127.0.0.1:${receiverPort}/hooks`, { method: 'POST', body: '{}', headers: { 'x-gatehouse-webhook-timestamp': '1', 'x-gatehouse-webhook-signature': 'sha256=00' }, signal: AbortSignal.timeout(30_000) })
      assert.equal(bad.status, 401)
      await py.stop()
      stops.pop()
    }
    const cursorFile = join(dir, 'reconcile-cursor')
    for (const round of [1, 2]) {
      const curl = await runSnippet(dir, 'curl', file('webhook-cache-refresh', 'curl'), await envFor('webhook-cache-refresh', {
        GATEHOUSE_RESOURCE_TYPE: 'product', GATEHOUSE_RESOURCE_ID: String(ids.products), GATEHOUSE_CURSOR_FILE: cursorFile,
      }))
      assert.equal(curl.status, 0, `cache-refresh.sh round ${round}: ${curl.stderr}`)
      assert.match(curl.stdout, /"title":"Blue shirt/)
    }

    // Catalog sync: each language with its own credential, so each takes the first-run path.
    const order = await app.services.store.get('orders', ids.orders)
    const expect: Record<string, (out: string) => void> = {
      'catalog-sync': (out) => assert.match(out, /synced 2 products, applied \d+ changes, pending 0|followed \d+ page\(s\); checkpoint saved/),
      'support-context': (out) => { assert.ok(out.includes(String(order?.number)), out); assert.match(out, /BLUE-S/) },
      'operations-watch': (out) => assert.match(out, /"verdict":"(ready|degraded)"|readiness: (ready|degraded)/),
    }
    let ran = 0
    for (const p of packs) {
      if (p.templateId === 'webhook-cache-refresh') continue
      // Its snippets run against workflows defined for them: test/jobs/scheduled-sync-pack.test.ts.
      if (p.templateId === 'scheduled-catalog-sync') continue
      if (!p.available) {
        // Only the governed draft may be unavailable: it needs the control plane's routes.
        assert.equal(p.templateId, 'governed-entry-draft')
        continue
      }
      for (const s of p.snippets) {
        if (s.language === 'python' && !hasPython) continue
        const extra: Record<string, string> = p.templateId === 'governed-entry-draft' ? { GATEHOUSE_ENTRY_SLUG: 'hello-world', GATEHOUSE_ENTRY_ID: String(ids.entries) } : {}
        const res = await runSnippet(dir, s.language, s.filename, await envFor(p.templateId, extra))
        assert.equal(res.status, 0, `${s.filename} exits 0: ${res.stderr}${res.stdout}`)
        if (p.templateId === 'governed-entry-draft') assert.match(res.stdout, /approval|"ok":true/)
        else expect[p.templateId](res.stdout)
        ran++
      }
    }
    assert.ok(ran >= (hasPython ? 9 : 6), `ran ${ran} snippets`)
    // Each catalog-sync run left a checkpoint for its own credential.
    const checkpoints = await app.database.db.selectFrom('sync_checkpoints').select(['integration_key', 'resource_type']).execute()
    assert.equal(checkpoints.filter((c) => c.resource_type === 'products').length, hasPython ? 3 : 2)
  } finally {
    for (const stop of stops) await stop()
    await app.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
