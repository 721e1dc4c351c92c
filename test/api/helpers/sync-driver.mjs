// The sync property test's worker process: docs/sync.md's example worker with excludeOwn, which
// writes back through the admin API with its own credential between pages, and records the
// origin of every change it applied (one JSON line each in SYNC_ORIGINS_FILE). The test kills
// it at random moments and starts it again: it resumes from its checkpoint.
import { appendFileSync } from 'node:fs'
import { runWorker, writeBack } from '../../../examples/sync-worker/sync-worker.mjs'

const env = process.env
let seed = Number(env.SYNC_SEED) >>> 0
const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32)
const ctx = (copy, call) => ({ baseUrl: env.GATEHOUSE_BASE_URL, adminToken: env.GATEHOUSE_ADMIN_TOKEN, credentialId: env.SYNC_CREDENTIAL_ID, call, copy, stateFile: env.SYNC_STATE_FILE })

await runWorker({
  baseUrl: env.GATEHOUSE_BASE_URL, token: env.GATEHOUSE_TOKEN, types: env.SYNC_TYPES.split(','), stateFile: env.SYNC_STATE_FILE,
  excludeOwn: true, followMs: env.SYNC_FOLLOW_MS === undefined ? undefined : Number(env.SYNC_FOLLOW_MS),
  afterPage: async (copy, call, items) => {
    for (const item of items) appendFileSync(env.SYNC_ORIGINS_FILE, JSON.stringify(item.origin) + '\n')
    // One line a page applied and checkpointed: the test times its kill from the first one, so
    // a kill lands in the work, not in a start-up a loaded machine made slow.
    process.stdout.write('page\n')
    if (env.SYNC_WRITE_BACK !== 'true' || random() < 0.5) return false
    const keys = Object.keys(copy).filter((k) => k.startsWith('products:') || k.startsWith('entries:'))
    if (keys.length === 0) return false
    const [type, id] = keys[Math.floor(random() * keys.length)].split(':')
    const patch = type === 'entries' && random() < 0.3 ? { status: 'pending' } : { title: `Written back ${Math.floor(random() * 1e6)}` }
    await writeBack(ctx(copy, call), type, Number(id), patch)
    return false
  },
})
console.log('caught up')
