// The sync contract as a property (docs/sync.md): while two writer processes make random
// creates, updates, deletes, status and owner changes through the admin API (visibility
// changes become tombstones and re-creations in the feed), a worker process copies, hands
// over, follows with checkpoints, is killed and started again from its checkpoint, and writes
// back through the admin API as its own credential. At the end its copy equals what that
// credential may see, record for record, and none of its own writes came back to it.
// GATEHOUSE_SYNC_PROPERTY_OPS sets the writers' operations per engine (default 200).
// npm test: timing (kills its worker at chosen moments while writers run)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { buildTestApp, testDialects } from '../helpers/test-app.js'
import { visibleCopy } from '../helpers/sync-copy.js'
import { NODE_TIERING } from '../helpers/cli-command.js'

const run = promisify(execFile)
const OPS = Number(process.env.GATEHOUSE_SYNC_PROPERTY_OPS ?? 200)
const ADMIN_TOKEN = 'admin-token-for-sync-property'
const TYPES = ['products', 'entries', 'contentblocks']
const SCOPES = ['changes:read', 'products:read', 'entries:read', 'contentblocks:read', 'syncstate:read', 'syncstate:write']

for (const dialect of await testDialects()) {
  test(`${dialect}: a killed and resumed two-way worker ends with exactly what its credential may see (${OPS} random writes)`, async () => {
    const app = await buildTestApp({ dialect, env: { PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN } })
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-sync-property-'))
    let worker: (ChildProcess & { working: Promise<void> }) | undefined
    try {
      await app.app.listen({ port: 0, host: '127.0.0.1' })
      const baseUrl = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`
      await app.services.store.create('sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'article', name: 'Article' }] })
      const entry = await app.services.store.create('entries', { section: 'news', type: 'article', title: 'First', slug: 'first' })
      await app.services.store.create('products', { type: 'mug', title: 'First mug', slug: 'first-mug' })
      await app.services.store.create('content-blocks', { ownerId: entry.id, fieldId: 1, type: 'text', sortOrder: 0, fields: { text: 'b' } })
      const { credential, token } = await app.services.credentials.create({ label: 'two-way sync', scopes: SCOPES })
      const stateFile = join(dir, 'copy.json')
      const originsFile = join(dir, 'origins.ndjson')
      const env = {
        PATH: process.env.PATH ?? '', GATEHOUSE_BASE_URL: baseUrl, GATEHOUSE_TOKEN: token, GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN,
        SYNC_CREDENTIAL_ID: credential.id, SYNC_TYPES: TYPES.join(','), SYNC_STATE_FILE: stateFile, SYNC_ORIGINS_FILE: originsFile,
      }
      const driver = 'test/api/helpers/sync-driver.mjs'
      let workerErrors = ''
      const startWorker = (seed: number) => {
        const child = spawn(process.execPath, [...NODE_TIERING, driver], { env: { ...env, SYNC_SEED: String(seed), SYNC_FOLLOW_MS: '30', SYNC_WRITE_BACK: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] })
        child.stderr?.on('data', (d) => { workerErrors += String(d) })
        // Resolves at its first page applied (a line on stdout) or when it ends.
        const working = new Promise<void>((resolve) => { child.stdout?.once('data', () => resolve()); child.once('exit', () => resolve()) })
        child.stdout?.resume()
        return Object.assign(child, { working })
      }

      // The first run copies and hands over before the writers start; later runs resume.
      worker = startWorker(9)
      // Its first page comes after the copy's checkpoint (the hand-over).
      await worker.working
      assert.ok((await app.get('/gatehouse/v1/sync-state/lag', token)).json().data.checkpoints.length > 0, `the worker checkpoints its hand-over: ${workerErrors}`)
      const writers = [1, 2].map((seed) => run(process.execPath, [...NODE_TIERING, 'test/api/helpers/random-writer.mjs', baseUrl, ADMIN_TOKEN, String(seed), String(Math.ceil(OPS / 2)), '20'], { maxBuffer: 1 << 20 }))
      let done = false
      const finished = Promise.all(writers).finally(() => { done = true })
      let kills = 0
      for (let seed = 10; !done; seed++) {
        if (seed > 10) worker = startWorker(seed)
        // Killed 0.4–1.3 s into its work (not its start-up: under load a start took longer
        // than that, and no run got as far as writing back).
        await worker.working
        await Promise.race([sleep(400 + (seed * 397) % 900), finished])
        const killed = worker
        const exited = new Promise((resolve) => (killed.exitCode !== null || killed.signalCode !== null ? resolve(undefined) : killed.once('exit', resolve)))
        killed.kill('SIGKILL')
        await exited
        kills++
      }
      const results = (await finished).map((r) => JSON.parse(r.stdout) as { ok: number; refused: number })
      assert.ok(results.reduce((n, r) => n + r.ok, 0) >= OPS / 2, `most random writes succeed: ${JSON.stringify(results)}`)
      assert.ok(kills >= 2, `the worker was killed and resumed (${kills} times)`)
      assert.equal(workerErrors, '', 'the worker never failed before it was killed')

      // Caught up once more, without writing back, it holds exactly what its credential may see.
      await run(process.execPath, [...NODE_TIERING, driver], { env: { ...env, SYNC_SEED: '1', SYNC_WRITE_BACK: 'false' } })
      assert.ok(existsSync(stateFile))
      const copy = JSON.parse(readFileSync(stateFile, 'utf8')) as Record<string, unknown>
      const visible = await visibleCopy(app, token, TYPES)
      assert.deepEqual(Object.keys(copy).sort(), Object.keys(visible).sort())
      assert.deepEqual(copy, visible)

      const origins = readFileSync(originsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { kind: string; credentialId?: string })
      assert.ok(origins.some((o) => o.kind === 'admin'), 'the writers\' changes came')
      assert.equal(origins.filter((o) => o.credentialId === credential.id).length, 0, 'none of its own writes came back')
      const own = (await app.get('/gatehouse/v1/changes?origin=credential&limit=200', token)).json().data as unknown[]
      assert.ok(own.length > 0, 'it did write back')
    } finally {
      worker?.kill('SIGKILL')
      await app.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
}
