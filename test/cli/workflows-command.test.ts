// `gatehouse workflows …`: create (errors name the flag typed), list and show (table and
// --json), pause, resume, runs and delete, through the job runtime; changes are audited with
// the operator as the actor. The surface runs on SQLite: the operations under it are tested
// on both engines through the admin and machine APIs (test/jobs/).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { assertNoInternals, cliDatabase, runCli } from './helpers/cli.js'

for (const dialect of ['sqlite'] as const) {
  test(`${dialect}: workflows create, list, show, pause, resume, runs and delete from the command line`, async (t) => {
    const target = await cliDatabase(dialect)
    t.after(() => target.destroy())
    const env = { PLUGIN_GATEHOUSE_DATABASE_URL: target.url }
    const cli = async (...args: string[]) => {
      const res = await runCli(args, { env })
      assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`)
      return res.stdout
    }
    const credential = JSON.parse(await cli('credentials', 'create', '--label', 'Sync worker', '--scopes', 'jobs:read,jobs:report', '--json')).credential

    const bad = await runCli(['workflows', 'create', '--name', 'x', '--template', 'scheduled-catalog-sync', '--credential', 'cred_none',
      '--cron', '30 25 * * *', '--timezone', 'Europe/Berlinn', '--boundary-products', '7'], { env })
    assert.equal(bad.code, 1)
    assert.equal(bad.stderr.trim(), 'gatehouse: invalid --cron: hour 25 (in "25") is outside 0–23; invalid --timezone: unknown IANA time zone "Europe/Berlinn"; invalid --credential: no credential with id cred_none')
    assertNoInternals(bad.stderr)
    const badConfig = await runCli(['workflows', 'create', '--name', 'x', '--template', 'k', '--credential', credential.id, '--cron', '0 * * * *', '--timezone', 'UTC', '--config', '[1]'], { env })
    assert.equal(badConfig.stderr.trim(), 'gatehouse: invalid --config: Expected object')

    const created = JSON.parse(await cli('workflows', 'create', '--name', 'Nightly catalog sync', '--template', 'scheduled-catalog-sync', '--credential', credential.id,
      '--cron', '30 2 * * *', '--timezone', 'Europe/Berlin', '--boundary-sections', 'news,blog', '--boundary-products', '3', '--config', '{"destination":"warehouse"}', '--json'))
    assert.match(created.id, /^wf_/)
    assert.deepEqual({ boundary: created.boundary, config: created.config, status: created.status, schedule: created.schedule },
      { boundary: { sections: ['news', 'blog'], entryIds: [], productIds: [3] }, config: { destination: 'warehouse' }, status: 'active', schedule: { cron: '30 2 * * *', timezone: 'Europe/Berlin' } })

    const table = await cli('workflows', 'list')
    assert.match(table, /^ID\s+NAME\s+TEMPLATE\s+CREDENTIAL\s+SCHEDULE\s+STATUS\s+NEXT DUE\s+DUE\s+LATEST RUN/)
    assert.ok(table.includes('Nightly catalog sync') && table.includes('30 2 * * * (Europe/Berlin)'), table)
    const listed = JSON.parse(await cli('workflows', 'list', '--json'))
    assert.deepEqual(listed.map((w: { id: string }) => w.id), [created.id])
    assert.match(await cli('workflows', 'show', created.id), /next due:\s+\d{4}-\d\d-\d\dT\d\d:30:00.000Z/)

    assert.match(await cli('workflows', 'pause', created.id), /is now paused/)
    assert.equal(JSON.parse(await cli('workflows', 'show', created.id, '--json')).nextDueAt, null)
    assert.match(await cli('workflows', 'resume', created.id), /is now active; next due/)
    assert.deepEqual(JSON.parse(await cli('workflows', 'runs', created.id, '--json')), [])
    assert.match(await cli('workflows', 'runs', created.id), /^RUN\s+OCCURRENCE\s+STATUS/)

    const missing = await runCli(['workflows', 'show', 'wf_missing'], { env })
    assert.equal(missing.code, 1)
    assert.equal(missing.stderr.trim(), 'gatehouse: No workflow with id wf_missing')
    assert.equal((await runCli(['workflows', 'runs', created.id, '--limit', '0'], { env })).code, 1)

    assert.equal(await cli('workflows', 'delete', created.id), `Deleted ${created.id}\n`)
    assert.deepEqual(JSON.parse(await cli('workflows', 'list', '--json')), [])

    const db = target.open()
    try {
      const audit = await db.db.selectFrom('control_audit').select(['action', 'actor_type']).where('category', '=', 'job').orderBy('id').execute()
      assert.deepEqual(audit.map((a) => a.action), ['workflow.create', 'workflow.pause', 'workflow.resume', 'workflow.delete'])
      assert.ok(audit.every((a) => a.actor_type === 'cli'))
    } finally {
      await db.close()
    }
  })
}
