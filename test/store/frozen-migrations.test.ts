// Migrations are frozen history: none reads the live resource declarations (directly or
// through another module), and migrations 001–010 build, on a fresh database, exactly the
// schema they built at commit 6e6f4f4 (the stored snapshots, one per engine). So a change to
// a declaration can no longer change what an old migration creates; reconciliation follows.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { migrations, runMigrations } from '../../src/store/migrations/index.js'
import { migrateSchema, schemaPlan } from '../../src/store/schema-reconcile.js'
import { allResources } from '../../src/resources/index.js'
import { schemaSnapshot, type SchemaSnapshot } from '../helpers/schema-snapshot.js'
import { emptyTestDatabase, testDialects } from '../helpers/test-app.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const MIGRATIONS_DIR = join(ROOT, 'src/store/migrations')
const RESOURCES_DIR = join(ROOT, 'src/resources')

/** Every project file `file` imports, directly or through other project files. */
function importClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen
  seen.add(file)
  const text = readFileSync(file, 'utf8')
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
    const spec = (m[1] ?? m[2]).replace(/\.js$/, '.ts')
    importClosure(resolve(dirname(file), spec), seen)
  }
  return seen
}

test('no migration imports src/resources/, directly or through another module', () => {
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.ts'))
  assert.ok(files.length >= 9, 'the migrations are where this test looks for them')
  for (const f of files) {
    const reached = [...importClosure(join(MIGRATIONS_DIR, f))].map((p) => relative(ROOT, p))
    const declarations = reached.filter((p) => resolve(ROOT, p).startsWith(RESOURCES_DIR))
    assert.deepEqual(declarations, [], `${f} reaches resource declarations through: ${reached.join(' → ')}`)
  }
})

test('the import scan sees resource declarations where they are imported', () => {
  // The scan itself must work: the content store does import the registry.
  const reached = [...importClosure(join(ROOT, 'src/store/content-store.ts'))].map((p) => relative(ROOT, p))
  assert.ok(reached.includes('src/resources/index.ts'), reached.join(', '))
})

const frozen = migrations.filter((m) => m.name.slice(0, 3) <= '010')

for (const dialect of await testDialects()) {
  test(`${dialect}: migrations 001–010 build exactly the schema stored for commit 6e6f4f4`, async (t) => {
    assert.deepEqual(frozen.map((m) => m.name.slice(0, 3)), ['001', '002', '003', '004', '007', '008', '009', '010'])
    const database = await emptyTestDatabase(dialect)
    t.after(() => database.destroy())
    await runMigrations(database, frozen)
    const expected = JSON.parse(readFileSync(new URL(`./fixtures/schema-010-${dialect}.json`, import.meta.url), 'utf8')) as SchemaSnapshot
    assert.deepEqual(await schemaSnapshot(database), expected)
  })

  test(`${dialect}: a fresh database, migrated and reconciled, matches every declaration`, async (t) => {
    const database = await emptyTestDatabase(dialect)
    t.after(() => database.destroy())
    const report = await migrateSchema(database, allResources)
    assert.deepEqual(report.migrations.map((m) => m.status), migrations.map(() => 'applied'))
    const recorded = await database.db.selectFrom('schema_steps').select(['kind', 'target']).orderBy('id').execute()
    assert.deepEqual(recorded, report.schemaSteps.map((s) => ({ kind: s.kind, target: s.target })))
    const plan = await schemaPlan(database, allResources)
    assert.deepEqual([...plan.problems, ...plan.steps.map((s) => s.description)], [])
  })
}
