// What differs by engine is decided by the adapter's flags and fragments
// (src/store/dialects/dialect-adapter.ts): only the dialect folders know which engine they
// are. A test of the engine's name anywhere else in src/ (`adapter.name === 'sqlite'`,
// `case 'postgres':`) fails here, naming the file and line.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'

const DIALECTS = join('src', 'store', 'dialects') + sep

const sources = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
  const p = join(dir, name)
  return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : []
})

/** A comparison with an engine's name, or a `.name` of the adapter compared with anything. */
const NAME_TEST = /[!=]==?\s*['"`](sqlite|postgres)['"`]|['"`](sqlite|postgres)['"`]\s*[!=]==?|case\s+['"`](sqlite|postgres)['"`]|adapter\.name\s*[!=]==?|\.includes\(\s*['"`](sqlite|postgres)['"`]\s*\)/

test('no file of src/ outside the dialect folders tests which engine it runs on', () => {
  const found: string[] = []
  for (const file of sources('src')) {
    if (relative('.', file).startsWith(DIALECTS)) continue
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      if (NAME_TEST.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`)
    })
  }
  assert.deepEqual(found, [])
})

test('the rule sees the forms it forbids', () => {
  for (const line of ["if (database.adapter.name === 'sqlite') x()", "const pg = dialect !== 'postgres'", "case 'sqlite': return 1", "['sqlite', 'pg'].includes('sqlite')"]) {
    assert.ok(NAME_TEST.test(line), line)
  }
  assert.ok(!NAME_TEST.test("check('database', 'ok', `${adapter.name} reachable`)"))
})
