// A workflow runs as a credential that lists and reports its runs: one without jobs:read
// and jobs:report could never run it, so the admin API, the control panel and the CLI refuse
// it, naming the missing scopes. One check under all three (workflow-definitions.ts).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDialects } from '../helpers/test-app.js'
import { jobsApp } from './helpers/jobs-app.js'
import { panelApp, signedIn } from '../panel/helpers/panel-client.js'
import { cliDatabase, runCli } from '../cli/helpers/cli.js'

const body = { name: 'Nightly sync', templateKey: 'scheduled-catalog-sync', schedule: { cron: '0 * * * *', timezone: 'UTC' } }

for (const dialect of await testDialects()) {
  test(`${dialect}: admin API: creating or moving a workflow to a credential without jobs:read and jobs:report is a 400 naming them`, async (t) => {
    const app = await jobsApp(dialect)
    t.after(() => app.close())
    const readsOnly = await app.worker(['products:read'])
    const noReport = await app.worker(['jobs:read', 'products:read'])
    const res = await app.admin.post('/workflows', { ...body, credentialId: readsOnly.id })
    assert.equal(res.statusCode, 400)
    assert.deepEqual(res.json().error.details, [{ param: 'credentialId', problem: `credential ${readsOnly.id} lacks jobs:read and jobs:report, which the workflow's worker needs to list and report its runs; grant jobs:read, jobs:report or choose another credential` }])
    const one = await app.admin.post('/workflows', { ...body, credentialId: noReport.id })
    assert.equal(one.statusCode, 400)
    assert.match(one.json().error.details[0].problem, new RegExp(`^credential ${noReport.id} lacks jobs:report,`))
    assert.deepEqual(await app.database.db.selectFrom('workflows').select('id').execute(), [], 'nothing created')

    const worker = await app.worker()
    const created = await app.define({ credentialId: worker.id })
    const moved = await app.admin.patch(`/workflows/${created.id}`, { credentialId: readsOnly.id })
    assert.equal(moved.statusCode, 400)
    assert.equal(moved.json().error.details[0].param, 'credentialId')
    assert.match(moved.json().error.details[0].problem, /lacks jobs:read and jobs:report/)
  })
}

test('control panel: the create form shows the missing scopes beside the credential', async (t) => {
  const app = await panelApp()
  t.after(() => app.close())
  const s = await signedIn(app)
  const { credential } = await app.services.credentials.create({ label: 'Reader', scopes: ['products:read', 'jobs:read'] })
  const res = await s.submit('/gatehouse/cp/jobs', { name: 'Nightly', templateKey: 'scheduled-catalog-sync', credentialId: credential.id, cron: '0 * * * *', timezone: 'UTC', sections: '', entryIds: '', productIds: '', config: '' })
  assert.equal(res.statusCode, 400)
  assert.match(res.body, new RegExp(`id="error-credentialId">Credential ${credential.id} lacks jobs:report, which the workflow&#39;s worker needs`))
  assert.deepEqual(await app.database.db.selectFrom('workflows').select('id').execute(), [])
})

test('CLI: workflows create names the missing scopes', async (t) => {
  const target = await cliDatabase('sqlite')
  t.after(() => target.destroy())
  const env = { PLUGIN_GATEHOUSE_DATABASE_URL: target.url }
  const made = await runCli(['credentials', 'create', '--label', 'Reader', '--scopes', 'products:read', '--json'], { env })
  const id = JSON.parse(made.stdout).credential.id as string
  const res = await runCli(['workflows', 'create', '--name', 'x', '--template', 'scheduled-catalog-sync', '--credential', id, '--cron', '0 * * * *', '--timezone', 'UTC'], { env })
  assert.equal(res.code, 1)
  assert.equal(res.stderr.trim(), `gatehouse: invalid --credential: credential ${id} lacks jobs:read and jobs:report, which the workflow's worker needs to list and report its runs; grant jobs:read, jobs:report or choose another credential`)
})
