// Two workers racing `started` for the same occurrence, through two app instances with their
// own connection pools on one PostgreSQL database: exactly one wins each of 20 rounds. The
// claim is safe twice over, and each half is shown on its own: the workflow's row lock
// serialises claims (the race also holds with the unique indexes dropped), and the partial
// unique indexes refuse a second live run of an occurrence even when written directly.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { openDatabase } from '../../src/store/database.js'
import { PG_URL, testDatabase, testDialects, type TestDatabase } from '../helpers/test-app.js'
import { jobsApp, type JobsApp } from './helpers/jobs-app.js'

const ROUNDS = 20
const HOUR = 3_600_000

async function twoInstances(database: TestDatabase): Promise<[JobsApp, JobsApp]> {
  const second = openDatabase(PG_URL, { schema: database.schema, poolSize: 4 })
  const a = await jobsApp('postgres', { database, start: '2025-06-02T08:30:00Z' })
  const b = await jobsApp('postgres', { database: { ...second, url: database.url, schema: database.schema, destroy: () => second.close() }, start: '2025-06-02T08:30:00Z' })
  return [a, b]
}

async function race(a: JobsApp, b: JobsApp): Promise<void> {
  const w = await a.worker()
  const wf = await a.define({ credentialId: w.id })
  const first = Date.parse('2025-06-02T09:00:00Z')
  for (let round = 0; round < ROUNDS; round++) {
    const at = first + round * HOUR + 60_000
    a.clock.set(at)
    b.clock.set(at)
    const [ra, rb] = await Promise.all([
      a.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'worker-a' }),
      b.report(w.token, { workflowId: wf.id, status: 'started', workerId: 'worker-b' }),
    ])
    const codes = [ra.statusCode, rb.statusCode].sort()
    assert.deepEqual(codes, [200, 409], `round ${round}: ${ra.body} / ${rb.body}`)
    const winner = ra.statusCode === 200 ? ra.json().data : rb.json().data
    assert.equal(winner.occurrence, new Date(first + round * HOUR).toISOString())
    const done = await (ra.statusCode === 200 ? a : b).report(w.token, { workflowId: wf.id, status: 'succeeded', runId: winner.id, workerId: winner.workerId })
    assert.equal(done.statusCode, 200, done.body)
  }
  const runs = await a.database.db.selectFrom('workflow_runs').select(['occurrence']).where('workflow_id', '=', wf.id).execute()
  assert.equal(runs.length, ROUNDS)
  assert.equal(new Set(runs.map((r) => Number(r.occurrence))).size, ROUNDS, 'one run per occurrence')
  const denied = await a.database.db.selectFrom('control_audit').select((eb) => eb.fn.countAll().as('n')).where('category', '=', 'job').where('action', '=', 'run.started').where('outcome', '=', 'denied').executeTakeFirstOrThrow()
  assert.equal(Number(denied.n), ROUNDS, 'every refused claim is audited')
}

/** Races on a fresh PostgreSQL schema; `prepare` changes it first. */
async function raceOn(prepare: (database: TestDatabase) => Promise<void> = async () => {}): Promise<void> {
  const database = await testDatabase('postgres')
  await prepare(database)
  const [a, b] = await twoInstances(database)
  try {
    await race(a, b)
  } finally {
    await b.close()
    await a.close()
    await database.destroy()
  }
}

if ((await testDialects()).includes('postgres')) {
  test(`postgres: two app instances race started for the same occurrence, ${ROUNDS} rounds: exactly one wins each`, () => raceOn())

  test('postgres: the workflow\'s row lock alone serialises the claims (unique indexes dropped)', () => raceOn(async (database) => {
    await sql`DROP INDEX workflow_runs_occurrence`.execute(database.db)
    await sql`DROP INDEX workflow_runs_open`.execute(database.db)
  }))
}

for (const dialect of await testDialects()) {
  test(`${dialect}: the unique indexes refuse a second live run of an occurrence and a second open run`, async () => {
    const database = await testDatabase(dialect)
    try {
      const db = database.db
      await db.insertInto('workflows').values({
        id: 'wf_1', name: 'w', template_key: 'k', credential_id: 'c', cron: '0 * * * *', timezone: 'UTC', boundary: null, config: '{}',
        status: 'active', anchor_at: 0, due_at: 0, created_at: 0, updated_at: 0,
      }).execute()
      const run = (id: string, occurrence: number, status: string) => db.insertInto('workflow_runs').values({
        id, workflow_id: 'wf_1', occurrence, status, worker_id: null, summary: null, approval_ids: '[]', outcome_refs: '[]', metadata: '{}',
        started_at: 0, updated_at: 0, finished_at: null, lease_expires_at: 1,
      }).execute()
      await run('r1', 100, 'succeeded')
      await assert.rejects(run('r2', 100, 'started'), 'a second live run of occurrence 100')
      await run('r3', 200, 'abandoned')
      await run('r4', 200, 'abandoned')
      await run('r5', 200, 'started')
      await assert.rejects(run('r6', 300, 'approval_requested'), 'a second open run of the workflow')
    } finally {
      await database.destroy()
    }
  })
}
