// `gatehouse migrate` applies every migration once, then the schema steps the resource
// declarations call for, and lists both; `--dry-run` lists the same and changes nothing; a
// column no declaration has stops migrate and start-up with a message naming the family, the
// column and the flag that drops it (`--drop-removed`). The schema rules themselves run on
// both engines in test/store/schema-reconcile.test.ts; this is the command around them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { migrations } from '../../src/store/migrations/index.js'
import { defaultRegistry } from '../../src/resources/index.js'
import { keepsTerms } from '../../src/store/record-terms.js'
import { assertNoInternals, cliDatabase, runCli } from './helpers/cli.js'
import { schemaSnapshot } from '../helpers/schema-snapshot.js'

// Columns declared after the frozen migrations, and each served family's exact-filter terms,
// reach a fresh database as schema steps too (in declaration order, a family's table first).
const SINCE_FROZEN = defaultRegistry.all.flatMap((r) => [
  ...(r.type === 'orders' ? [{
    resourceType: 'orders', kind: 'add-column', target: 'orders.is_completed', rowsFilled: 0,
    description: "add column orders.is_completed (integer), filled from each record's document.isCompleted, with orders_is_completed_updated",
  }] : []),
  ...(keepsTerms(r) ? [{
    resourceType: r.type, kind: 'create-terms', target: `${r.table}_terms`, rowsFilled: 0,
    description: `create table ${r.table}_terms (the exact-filter terms of ${r.table}), filled from each record's document`,
  }] : []),
])

test('migrate: --dry-run changes nothing, then migrations and schema steps are applied once and listed', async (t) => {
  const db = await cliDatabase('sqlite')
  t.after(() => db.destroy())
  const env = { PLUGIN_GATEHOUSE_DATABASE_URL: db.url }
  const stored = db.open()
  t.after(() => stored.close())

  const fresh = await runCli(['migrate', '--dry-run', '--json'], { env })
  assert.equal(fresh.code, 0, fresh.stderr)
  assert.deepEqual(JSON.parse(fresh.stdout), {
    dryRun: true, migrations: migrations.map((m) => ({ name: m.name, status: 'pending' })),
    schemaSteps: SINCE_FROZEN.map((step) => ({ ...step, status: 'pending' })), problems: [],
  })
  assert.deepEqual(await schemaSnapshot(stored), {}, 'the dry run created no table')

  const first = await runCli(['migrate'], { env })
  assert.equal(first.code, 0, first.stderr)
  const [table, schema] = first.stdout.trim().split('\n\n')
  const lines = table.split('\n')
  assert.deepEqual(lines[0].split(/\s+/), ['MIGRATION', 'STATUS'])
  assert.deepEqual(lines.slice(1).map((l) => l.split(/\s{2,}/)), migrations.map((m) => [m.name, 'applied now']))
  assert.deepEqual(schema.split('\n').slice(1).map((l) => l.split(/\s{2,}/)), SINCE_FROZEN.map((step) => [step.kind, step.resourceType, 'applied now', step.description]))
  // Each step is printed once: in the table, not also as a progress line (none filled rows).
  for (const step of SINCE_FROZEN) {
    assert.equal(`${first.stdout}${first.stderr}`.split(step.description).length - 1, 1, `printed once: ${step.description}`)
  }
  assert.equal(first.stderr, '')
  const again = await runCli(['migrate'], { env })
  assert.match(again.stdout, /^schema: matches the resource declarations$/m)
  const rows = await stored.db.selectFrom('migrations').select('name').orderBy('name').execute()
  assert.deepEqual(rows.map((r) => r.name), migrations.map((m) => m.name).sort())

  // An index lost by hand: the dry run lists the step that puts it back, and changes nothing.
  await sql`DROP INDEX products_slug_unique`.execute(stored.db)
  const before = await schemaSnapshot(stored)
  const dry = await runCli(['migrate', '--dry-run'], { env })
  assert.equal(dry.code, 0, dry.stderr)
  assert.match(dry.stdout, /^001-content-store +already applied$/m)
  assert.match(dry.stdout, /^SCHEMA STEP +FAMILY +STATUS +WHAT$/m)
  assert.match(dry.stdout, /^create-index +products +pending +create unique index products_slug_unique on products \(slug\)$/m)
  assert.deepEqual(await schemaSnapshot(stored), before)

  const run = await runCli(['migrate', '--json'], { env })
  assert.equal(run.code, 0, run.stderr)
  assert.deepEqual(JSON.parse(run.stdout), {
    dryRun: false,
    migrations: migrations.map((m) => ({ name: m.name, status: 'already-applied' })),
    schemaSteps: [{
      resourceType: 'products', kind: 'create-index', target: 'products_slug_unique', status: 'applied', rowsFilled: 0,
      description: 'create unique index products_slug_unique on products (slug)',
    }],
    problems: [],
  })
  const steps = await stored.db.selectFrom('schema_steps').select(['resource_type', 'kind', 'target']).execute()
  assert.deepEqual(steps, [
    ...SINCE_FROZEN.map((step) => ({ resource_type: step.resourceType, kind: step.kind, target: step.target })),
    { resource_type: 'products', kind: 'create-index', target: 'products_slug_unique' },
  ])
})

test('migrate: a column no declaration has stops migrate and start-up until --drop-removed drops it', async (t) => {
  const db = await cliDatabase('sqlite')
  t.after(() => db.destroy())
  const env = { PLUGIN_GATEHOUSE_DATABASE_URL: db.url }
  const stored = db.open()
  t.after(() => stored.close())
  assert.equal((await runCli(['migrate'], { env })).code, 0)
  await sql`ALTER TABLE products ADD COLUMN weight_grams integer`.execute(stored.db)

  const message = /products: column "weight_grams" of table products is no longer declared\. Its values are also in each record's stored document: run `gatehouse migrate --drop-removed` to drop the column \(a recorded schema step\), or declare it again/
  const refused = await runCli(['migrate'], { env })
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^gatehouse: the database does not match the resource declarations; schema reconciliation changed nothing:$/m)
  assert.match(refused.stderr, message)
  assertNoInternals(refused.stderr)
  const serve = await runCli(['serve', '--port', '0'], { env, timeoutMs: 30_000 })
  assert.equal(serve.code, 1, 'start-up reconciles too, and stops')
  assert.match(serve.stderr, message)

  const dry = await runCli(['migrate', '--dry-run'], { env })
  assert.equal(dry.code, 1)
  assert.match(dry.stdout, message)
  assert.match(dry.stderr, /^gatehouse: --dry-run: gatehouse migrate would stop on 1 schema problem\(s\) listed above$/m)

  const dropped = await runCli(['migrate', '--drop-removed'], { env })
  assert.equal(dropped.code, 0, dropped.stderr)
  assert.match(dropped.stdout, /^drop-column +products +applied now +drop column products\.weight_grams, no longer declared \(its values stay in the stored documents\)$/m)
  const columns = (await stored.adapter.describeTables(stored.db)).find((x) => x.name === 'products')?.columns.map((c) => c.name)
  assert.equal(columns?.includes('weight_grams'), false)
})
