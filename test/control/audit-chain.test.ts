// The audit log is a hash chain: each record's hash covers the previous hash and the record,
// so `gatehouse audit verify` (run here as a real process) finds an edited record, a
// deleted one and deleted newest records, and names the first broken link.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects, PG_URL } from '../helpers/test-app.js'
import { runCli } from '../cli/helpers/cli.js'
import { verifyAudit, auditHash, type AuditRecord } from '../../src/control/audit-log.js'
import { AGENT_SCOPES, CONTROL, DECIDER_SCOPES, controlApp, openPolicy, type ControlApp } from './helpers/control-app.js'

/** The database URL the CLI opens to see the app's database (its schema, on PostgreSQL). */
function cliUrl(app: ControlApp): string {
  if (!app.database.schema) return app.database.url
  return `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${app.database.schema}`)}`
}

async function someHistory(app: ControlApp): Promise<AuditRecord[]> {
  const agent = await app.token(AGENT_SCOPES)
  await app.upsertPolicy(openPolicy('stock', 'variant.adjustStock'))
  const id = (await app.request(agent, 'order.setStatus', { orderId: app.ids.orders, status: 'shipped' })).json().data.id
  await app.decide(await app.token(DECIDER_SCOPES), id, 'approve')
  await app.execute(agent, { actionType: 'variant.adjustStock', payload: { variantId: app.ids.variants, delta: 1 } })
  await app.execute(agent, { actionType: 'variant.adjustStock', payload: { variantId: app.ids.variants, delta: -100 } })
  return (await app.get(`${CONTROL}/audit?limit=200`, await app.token(['control:audit:read']))).json().data
}

for (const dialect of await testDialects()) {
  test(`${dialect}: the chain links every record; verify finds an edited record, a deleted one and deleted newest ones`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    const records = await someHistory(app)
    // Issuing the test's tokens is audited too (credential records).
    const n = records.length
    assert.ok(n >= 9, `${n} records`)
    assert.deepEqual(records.map((r) => r.id), Array.from({ length: n }, (_, i) => i + 1))
    assert.deepEqual(records.filter((r) => r.category !== 'credential').map((r) => `${r.category}:${r.action}:${r.outcome}`),
      ['policy:create:success', 'approval:request:success', 'approval:approve:success', 'execution:execute:success', 'execution:execute:blocked'])
    assert.equal(records[0].prevHash, '0'.repeat(64))
    for (let i = 0; i < records.length; i++) {
      const { hash, ...rest } = records[i]
      assert.equal(auditHash(rest), hash, `record ${i + 1} hash`)
      if (i > 0) assert.equal(records[i].prevHash, records[i - 1].hash)
    }
    const db = app.database.db
    assert.deepEqual(await verifyAudit(db), { ok: true, checked: n, lastId: n, headSeq: n, brokenAt: null })
    const env = { PLUGIN_GATEHOUSE_DATABASE_URL: cliUrl(app) }

    if (dialect === 'sqlite') {
      const intact = await runCli(['audit', 'verify', '--json'], { env })
      assert.equal(intact.code, 0, intact.stderr)
      assert.deepEqual(JSON.parse(intact.stdout), { ok: true, checked: n, lastId: n, headSeq: n, brokenAt: null })
      const listed = await runCli(['audit', 'list', '--after', '2', '--limit', '3', '--json'], { env })
      assert.deepEqual(JSON.parse(listed.stdout), records.slice(2, 5), 'gatehouse audit list prints the records in append order')
    }

    // An edited record breaks its own hash.
    await db.updateTable('control_audit').set({ summary: 'nothing to see here' }).where('id', '=', 3).execute()
    if (dialect === 'sqlite') {
      const edited = await runCli(['audit', 'verify'], { env })
      assert.equal(edited.code, 1)
      assert.equal(edited.stdout, `Audit chain BROKEN at record 3: the record does not match its hash (edited)\n2 record(s) before it verified; the head says ${n} were written.\n`)
    } else {
      assert.deepEqual((await verifyAudit(db)).brokenAt, { id: 3, problem: 'the record does not match its hash (edited)' })
    }
    await db.updateTable('control_audit').set({ summary: records[2].summary }).where('id', '=', 3).execute()
    assert.equal((await verifyAudit(db)).ok, true, 'restored, it verifies again')

    // Re-hashing an edited record moves the break to the next link.
    const forged = { ...records[1], summary: 'forged' }
    const { hash: _old, ...forgedContent } = forged
    await db.updateTable('control_audit').set({ summary: 'forged', hash: auditHash(forgedContent) }).where('id', '=', 2).execute()
    assert.deepEqual((await verifyAudit(db)).brokenAt, { id: 3, problem: 'prevHash does not match the hash of the record before it' })
    await db.updateTable('control_audit').set({ summary: records[1].summary, hash: records[1].hash }).where('id', '=', 2).execute()

    // A deleted record leaves a gap.
    const row4 = await db.selectFrom('control_audit').selectAll().where('id', '=', 4).executeTakeFirstOrThrow()
    await db.deleteFrom('control_audit').where('id', '=', 4).execute()
    if (dialect === 'postgres') {
      const deleted = await runCli(['audit', 'verify', '--json'], { env })
      assert.equal(deleted.code, 1, deleted.stderr)
      assert.deepEqual(JSON.parse(deleted.stdout).brokenAt, { id: 4, problem: `record 4 is missing (deleted); the next one is 5` })
    } else {
      assert.deepEqual((await verifyAudit(db)).brokenAt, { id: 4, problem: 'record 4 is missing (deleted); the next one is 5' })
    }
    await db.insertInto('control_audit').values(row4).execute()

    // Deleting the newest records leaves the chain whole but shorter than the head says.
    await db.deleteFrom('control_audit').where('id', '>=', 4).execute()
    assert.deepEqual((await verifyAudit(db)).brokenAt, { id: 4, problem: `records 4..${n} are missing (deleted); the head says ${n} were written` })
  })
}

// Verifying while the service writes: records appended during the walk are the next head's,
// not a break (it answered "records after N were not appended through the log" under load);
// a record inserted around the log is still found.
for (const dialect of await testDialects()) {
  test(`${dialect}: verify holds while records are appended, and finds one inserted around the log`, async (t) => {
    const app = await controlApp(dialect)
    t.after(() => app.close())
    await someHistory(app)
    const agent = await app.token(AGENT_SCOPES)
    let writing = true
    const writer = (async () => {
      for (let i = 0; writing; i++) await app.execute(agent, { actionType: 'variant.adjustStock', payload: { variantId: app.ids.variants, delta: 1 } })
    })()
    const verdicts = []
    for (let i = 0; i < 12; i++) {
      verdicts.push(await verifyAudit(app.database.db, 2))
      // The writer runs between verifications too (on SQLite the walk never waits on I/O).
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    writing = false
    await writer
    assert.deepEqual(verdicts.filter((v) => !v.ok).map((v) => v.brokenAt), [], 'every verification during the writes held')
    assert.ok(verdicts.at(-1)!.headSeq > verdicts[0].headSeq, 'records were appended meanwhile')

    const db = app.database.db
    const last = await db.selectFrom('control_audit').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()
    await db.insertInto('control_audit').values({ ...last, id: Number(last.id) + 1 }).execute()
    const headSeq = Number(last.id)
    assert.deepEqual((await verifyAudit(db)).brokenAt, { id: headSeq + 1, problem: `records after ${headSeq} were not appended through the log (the head says ${headSeq})` })
  })
}
