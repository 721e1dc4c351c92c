// docs/sync.md's worker (examples/sync-worker/sync-worker.mjs) runs as a user runs it, against
// a live server: the first run copies and hands over, a second run resumes from its checkpoint,
// and its copy equals what its credential may see; as a two-way sync it writes back through
// the admin API without reading its own writes back.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { buildTestApp } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { visibleCopy } from '../helpers/sync-copy.js'
import { runWorker, writeBack, type Call } from '../../examples/sync-worker/sync-worker.mjs'

const run = promisify(execFile)
const ADMIN_TOKEN = 'admin-token-for-sync-example'
const TYPES = ['products', 'entries', 'contentblocks']
const SCOPES = ['changes:read', 'products:read', 'entries:read', 'contentblocks:read', 'syncstate:read', 'syncstate:write']

test('the sync worker example copies, hands over, resumes from its checkpoint and writes back without echo', async () => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN } })
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-sync-'))
  try {
    await app.app.listen({ port: 0, host: '127.0.0.1' })
    const baseUrl = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`
    const { ids } = await seedSmallCatalog(app.services.store)
    const { store } = app.services
    const entry = (await store.outsideTransaction().idsWhere('entries', 'status', 'live'))[0]
    await store.create('content-blocks', { ownerId: entry, fieldId: 1, type: 'text', sortOrder: 0, fields: { text: 'Hi' } })
    const { credential, token } = await app.services.credentials.create({ label: 'sync worker', scopes: SCOPES })
    const stateFile = join(dir, 'copy.json')
    const env = { PATH: process.env.PATH ?? '', GATEHOUSE_BASE_URL: baseUrl, GATEHOUSE_TOKEN: token, SYNC_TYPES: TYPES.join(','), SYNC_STATE_FILE: stateFile }
    const worker = () => run(process.execPath, ['examples/sync-worker/sync-worker.mjs'], { env })
    const copy = () => JSON.parse(readFileSync(stateFile, 'utf8')) as Record<string, unknown>

    const first = await worker()
    assert.match(first.stdout, /^copy holds \d+ records; applied 0 changes\n$/, 'the hand-over replays nothing older than the copy')
    assert.deepEqual(copy(), await visibleCopy(app, token, TYPES))

    await store.update('products', ids.products, { title: 'Renamed' })
    await store.update('entries', entry, { status: 'pending' })
    const second = await worker()
    assert.match(second.stdout, /applied [1-9]\d* changes/)
    const now = copy()
    assert.deepEqual(now, await visibleCopy(app, token, TYPES))
    assert.equal(Object.keys(now).some((k) => k.startsWith('contentblocks:')), false, 'the hidden entry\'s block left the copy')

    // Two-way: write back between pages, with the worker's own credential named.
    const { position } = (await app.get('/gatehouse/v1/changes/position', token)).json().data
    let wrote = false
    const result = await runWorker({
      baseUrl, token, types: TYPES, stateFile, excludeOwn: true,
      afterPage: async (c: Record<string, unknown>, call: Call) => {
        if (wrote) return false
        wrote = true
        await writeBack({ baseUrl, adminToken: ADMIN_TOKEN, credentialId: credential.id, call, copy: c, stateFile }, 'entries', entry, { status: 'live', title: 'Back live' })
        await writeBack({ baseUrl, adminToken: ADMIN_TOKEN, credentialId: credential.id, call, copy: c, stateFile }, 'products', ids.products, { title: 'Written back' })
        return true
      },
    })
    // Only what the service derived from its writes came back (the entry's block, shown again).
    assert.ok(result.applied >= 1)
    const after = copy()
    assert.equal((after[`products:${ids.products}`] as { title: string }).title, 'Written back')
    const own = (await app.get(`/gatehouse/v1/changes?types=${TYPES.join(',')}&after=${position}`, token)).json().data as { origin: { kind: string; credentialId?: string } }[]
    assert.deepEqual(own.filter((i) => i.origin.kind !== 'system').map((i) => i.origin), [
      { kind: 'credential', credentialId: credential.id }, { kind: 'credential', credentialId: credential.id },
    ], 'its two writes are its own; what they derived is the service\'s')
    assert.equal(own.length - 2, result.applied, 'it applied exactly the derived changes')
    assert.deepEqual(after, await visibleCopy(app, token, TYPES))
    assert.ok(Object.keys(after).some((k) => k.startsWith('contentblocks:')), 'the block is back')
  } finally {
    await app.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
