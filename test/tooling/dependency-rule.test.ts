// The layers of docs/architecture.md, checked: dependency-cruiser runs the rule in
// .dependency-cruiser.cjs (no import from a lower layer to a higher one, no cycle, type-only
// imports included) on src/; this file adds what the tool cannot say in a rule (no two folders
// that import each other, SQL only where a part owns the tables) and shows once, on a small
// tree of its own, that the rule fails on a back-edge and on a cycle.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { NODE_TIERING } from '../helpers/cli-command.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..')
const CONFIG = join(ROOT, '.dependency-cruiser.cjs')
const BIN = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs')

interface Cruise {
  readonly modules: readonly { readonly source: string; readonly dependencies: readonly { readonly resolved: string }[] }[]
  readonly summary: { readonly violations: readonly { readonly from: string; readonly to: string; readonly rule: { readonly name: string } }[] }
}

function cruise(cwd: string): Cruise {
  const run = spawnSync(process.execPath, [...NODE_TIERING, BIN, 'src', '--config', CONFIG, '--output-type', 'json'], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 })
  assert.ok(run.stdout.startsWith('{'), `dependency-cruiser failed: ${run.stderr}`)
  return JSON.parse(run.stdout) as Cruise
}

const folderOf = (path: string) => path.split('/').slice(0, 2).join('/').replace(/\.ts$/, '')

test('src/ keeps its layers: no upward import, no cycle, no two folders importing each other', () => {
  const result = cruise(ROOT)
  assert.ok(result.modules.length > 200, `cruised ${result.modules.length} modules`)
  const violations = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)
  assert.deepEqual(violations, [])

  const edges = new Set<string>()
  for (const m of result.modules) {
    for (const d of m.dependencies) {
      const [a, b] = [folderOf(m.source), folderOf(d.resolved)]
      if (a !== b && b.startsWith('src/')) edges.add(`${a} -> ${b}`)
    }
  }
  const twoWay = [...edges].filter((e) => {
    const [a, b] = e.split(' -> ')
    return a < b && edges.has(`${b} -> ${a}`)
  })
  assert.deepEqual(twoWay, [])
})

test('the rule fails on a deliberate back-edge and on a type-only cycle', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }))
  write('package.json', JSON.stringify({ type: 'module' }))
  write('src/kernel/errors.ts', "import { routes } from '../api/routes.js'\nexport const codes = routes.length\n")
  write('src/api/routes.ts', 'export const routes: string[] = []\n')
  write('src/store/a.ts', "import type { B } from './b.js'\nexport interface A { b?: B }\n")
  write('src/store/b.ts', "import type { A } from './a.js'\nexport interface B { a?: A }\n")

  const found = cruise(dir).summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort()
  assert.deepEqual(found, [
    'no-circular: src/store/a.ts -> src/store/b.ts',
    'no-upward-from-kernel: src/kernel/errors.ts -> src/api/routes.ts',
  ])
})

/**
 * Which part owns which tables. SQL lives in the store (content tables, the change log, meta,
 * schema steps) and in a part's own files, on that part's tables only; any other part calls
 * the owner's functions.
 */
const OWNERS: Readonly<Record<string, RegExp>> = {
  auth: /^(credentials|admins|admin_tokens|panel_sessions|panel_login_throttle|mcp_sessions)$/,
  webhooks: /^webhook_/,
  control: /^control_/,
  jobs: /^workflow(s|_runs)$/,
  ops: /^ops_/,
  integration: /^sync_checkpoints$/,
  oauth: /^oauth_(models|clients|grants)$/,
}

const SQL_MARK = /\b(selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin)\(\s*['"]([a-z_]+)/g
const RAW_SQL = /\bsql(<[^>]*>)?`/

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : []
  })
}

test('SQL only in the store and in a part\'s own files, on its own tables', () => {
  const problems: string[] = []
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    const path = relative(ROOT, file)
    const folder = path.split('/')[1] ?? ''
    if (folder === 'store') continue
    const text = readFileSync(file, 'utf8')
    const tables = [...text.matchAll(SQL_MARK)].map((m) => m[2] ?? '')
    const owns = OWNERS[folder]
    if (!owns) {
      if (tables.length > 0 || RAW_SQL.test(text)) problems.push(`${path}: SQL outside the store and the parts`)
      continue
    }
    for (const table of new Set(tables)) if (!owns.test(table)) problems.push(`${path}: reads ${table}, which ${folder}/ does not own`)
  }
  assert.deepEqual(problems, [])
})
