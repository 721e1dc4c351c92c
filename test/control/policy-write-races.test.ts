// Concurrent policy changes through two serving processes on one PostgreSQL schema or one
// SQLite file: this test's app, and `gatehouse serve` as a child process. Each change of a pair relaxes nothing on its own,
// but together they would let order.refund run without approval; every change is judged
// inside its write's transaction under the policy lock, against the policies as they are
// then, so at most one of a pair is written directly, the other is a 409, and the audit log
// says what really happened: replaying it, no change recorded as "direct" relaxed anything
// against the state it was written into.
// npm test: timing (two processes racing each change)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects, type TestApp, type TestResponse } from '../helpers/test-app.js'
import { processDatabaseUrl, startServeProcess, type ServeProcess } from '../helpers/serve-process.js'
import { listAudit } from '../../src/control/audit-log.js'
import { relaxations } from '../../src/control/policy-relaxation.js'
import { changeRelaxations } from '../../src/control/latent-relaxation.js'
import type { Policy } from '../../src/control/policy.js'
import { ADMIN_TOKEN, CONTROL, controlApp, type ControlApp } from './helpers/control-app.js'

const ROUNDS = 50

const strict = (handle: string, actionPattern: string) => ({ handle, displayName: handle, actionPattern, requiresApproval: true, requiredApprovals: 2 as const })

/** A policy as the audit records it (policyAuditView) with its handle. */
const fromAudit = (handle: string, view: Record<string, unknown>): Policy =>
  ({ handle, ...view, builtIn: false, createdAt: null, updatedAt: null, updatedBy: null }) as unknown as Policy

/**
 * Replays every policy change in audit order (the order they committed in): each one a
 * credential wrote directly relaxes nothing, in effect or where shadowed, against the state
 * before it; refusals wrote nothing. Answers the counts by path.
 */
async function replayAudit(app: TestApp): Promise<Record<string, number>> {
  const state = new Map<string, Policy>()
  const counts: Record<string, number> = {}
  let afterId = 0
  for (;;) {
    const { items, hasMore } = await listAudit(app.database.db, { category: 'policy', afterId, limit: 500 })
    for (const r of items) {
      const path = String(r.metadata.path)
      counts[`${r.outcome}:${path}`] = (counts[`${r.outcome}:${path}`] ?? 0) + 1
      if (r.outcome !== 'success') continue
      const handle = (r.entity as { id: string }).id
      const before = r.metadata.before === null ? undefined : fromAudit(handle, r.metadata.before as Record<string, unknown>)
      assert.deepEqual(before, state.get(handle), `audit ${r.id}: "before" is the policy as it was when the change committed`)
      const written = fromAudit(handle, r.metadata.after as Record<string, unknown>)
      if (path === 'direct') {
        assert.deepEqual(changeRelaxations([...state.values()], written).map((x) => x.problem), [], `audit ${r.id} (${r.summary}) relaxes nothing`)
        assert.deepEqual(r.metadata.relaxations, [])
      }
      state.set(handle, written)
    }
    if (!hasMore) break
    afterId = items[items.length - 1].id
  }
  return counts
}

/** The other serving process: `gatehouse serve` on the same database, answering over HTTP. */
interface Remote {
  post(url: string, body: unknown, token: string): Promise<TestResponse>
}

/** This process's app (a), and `gatehouse serve` as a child process on its database (b). */
async function twoProcesses(dialect: 'sqlite' | 'postgres'): Promise<{ a: ControlApp; b: Remote; close: () => Promise<void> }> {
  const a = await controlApp(dialect)
  let child: ServeProcess
  try {
    child = await startServeProcess({ PLUGIN_GATEHOUSE_DATABASE_URL: processDatabaseUrl(a.database), PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true', PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN })
  } catch (err) {
    await a.close()
    throw err
  }
  const base = child.base
  const close = async () => {
    await child.stop()
    await a.close()
  }
  const b: Remote = {
    async post(path, body, token) {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      const text = await res.text()
      return { statusCode: res.status, headers: Object.fromEntries(res.headers), body: text, json: () => JSON.parse(text) }
    },
  }
  return { a, b, close }
}

/**
 * Runs `rounds` of: an operator resets the policies, then the two changes are sent at the same
 * moment, one through each process (which one alternates). Answers the status pairs.
 */
async function race(a: ControlApp, b: Remote, token: string, reset: readonly Record<string, unknown>[], pair: readonly [Record<string, unknown>, Record<string, unknown>], rounds: number) {
  const statuses: string[] = []
  for (let i = 0; i < rounds; i++) {
    for (const p of reset) assert.equal((await a.upsertPolicy(p)).statusCode, 200)
    const before = await a.services.control.policies.list()
    const [first, second] = i % 2 === 0 ? [a, b] : [b, a]
    const answers: TestResponse[] = await Promise.all([
      first.post(`${CONTROL}/policies/upsert`, pair[0], token),
      second.post(`${CONTROL}/policies/upsert`, pair[1], token),
    ])
    for (const res of answers) assert.ok(res.statusCode === 200 || res.statusCode === 409, res.body)
    statuses.push(answers.map((r) => r.statusCode).join('/'))
    const after = await a.services.control.policies.list()
    assert.deepEqual(relaxations(before, after).map((r) => r.problem), [], `round ${i} (${statuses[i]}): written directly, the pair relaxed control`)
  }
  return statuses
}

for (const dialect of await testDialects()) {
  test(`${dialect}: the reported pair (order.* switched to no approval, order.refund's policy re-pointed) through two processes, ${ROUNDS} rounds: never a relaxation written directly`, async (t) => {
    const { a, b, close } = await twoProcesses(dialect)
    t.after(close)
    const token = await a.token(['control:policies:write'])
    await a.upsertPolicy(strict('x-status', 'order.setStatus'))
    const reset = [strict('x-all', 'order.*'), strict('x-refund', 'order.refund')]
    const pair = [{ ...strict('x-all', 'order.*'), requiresApproval: false }, strict('x-refund', 'order.setStatus')] as const
    const statuses = await race(a, b, token, reset, pair, ROUNDS)
    // x-all without approval lies lax under x-refund and x-status: a relaxation on its own.
    assert.ok(statuses.every((s) => s === '409/200'), statuses.join(' '))
    // order.refund is decided by x-all, which still requires approval.
    const agent = await a.token(['control:actions:execute', 'control:approvals:request', 'orders:read'])
    const exec = await a.execute(agent, { actionType: 'order.refund', payload: { orderId: a.ids.orders, amount: 1 } })
    assert.equal(exec.json().data.status, 'blocked', exec.body)
    assert.match(exec.json().data.reasons.join(' '), /policy x-all requires approval \(2 approvals\)/)
    const counts = await replayAudit(a)
    assert.equal(counts['success:direct'], ROUNDS)
    assert.equal(counts['blocked:approval-required'], ROUNDS)
  })

  test(`${dialect}: two changes that relax only together (the policy under order.refund's moved away while order.refund's is re-pointed) through two processes, ${ROUNDS} rounds: one of them is refused`, async (t) => {
    const { a, b, close } = await twoProcesses(dialect)
    t.after(close)
    const token = await a.token(['control:policies:write'])
    // An operator's lax order.* (an accepted latent laxness), under a strict order.re* and the
    // exact policies. Re-pointing x-refund alone hands order.refund to mid (as strict); moving
    // mid alone changes nothing for orders; both hand order.refund to the lax order.*.
    await a.upsertPolicy({ handle: 'x-all', displayName: 'x-all', actionPattern: 'order.*', requiresApproval: false })
    await a.upsertPolicy(strict('x-status', 'order.setStatus'))
    const reset = [strict('x-refund', 'order.refund'), strict('mid', 'order.re*')]
    const pair = [strict('x-refund', 'order.setStatus'), strict('mid', 'variant.*')] as const
    const statuses = await race(a, b, token, reset, pair, ROUNDS)
    assert.ok(statuses.every((s) => s === '200/409' || s === '409/200'), statuses.join(' '))
    const counts = await replayAudit(a)
    assert.equal(counts['success:direct'], ROUNDS)
    assert.equal(counts['blocked:approval-required'], ROUNDS)
  })
}
