// docs/configuration.md lists exactly the settings src/kernel/settings.ts reads, and its literal
// defaults are the ones the code applies.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadSettings } from '../../src/kernel/settings.js'
import { ROOT } from './helpers/cli.js'

const source = readFileSync(join(ROOT, 'src/kernel/settings.ts'), 'utf8')
const doc = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8')

/** Names read through read()/bool()/int() or built as PREFIX + 'NAME'. */
function namesInSource(): Set<string> {
  const names = new Set<string>()
  for (const m of source.matchAll(/\b(?:read|bool|int)\('([A-Z0-9_]+)'/g)) names.add(`PLUGIN_GATEHOUSE_${m[1]}`)
  for (const m of source.matchAll(/PREFIX \+ '([A-Z0-9_]+)'/g)) names.add(`PLUGIN_GATEHOUSE_${m[1]}`)
  return names
}

/** Rows of the docs' tables: setting → default cell. */
function documentedRows(): Map<string, string> {
  const rows = new Map<string, string>()
  for (const m of doc.matchAll(/^\| `(PLUGIN_GATEHOUSE_[A-Z0-9_]+)` \| ([^|]+) \|/gm)) rows.set(m[1], m[2].trim())
  return rows
}

test('every setting read in src/kernel/settings.ts has a row in docs/configuration.md, and no other', () => {
  const read = namesInSource()
  assert.ok(read.size >= 20, `only ${read.size} settings found; did the parsing break?`)
  const rows = documentedRows()
  const missing = [...read].filter((n) => !rows.has(n))
  assert.deepEqual(missing, [], 'settings without a row in docs/configuration.md')
  const stale = [...rows.keys()].filter((n) => !read.has(n))
  assert.deepEqual(stale, [], 'rows for settings src/kernel/settings.ts does not read')
  const mentioned = new Set(doc.match(/PLUGIN_GATEHOUSE_[A-Z0-9_]+/g))
  assert.deepEqual([...mentioned].filter((n) => !read.has(n)), [], 'docs mention settings that do not exist')
})

test('the literal defaults in docs/configuration.md are what loadSettings applies', () => {
  const defaults = loadSettings({}) as unknown as Record<string, unknown>
  const camel = (name: string) => name.replace('PLUGIN_GATEHOUSE_', '').toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
  let checked = 0
  for (const [name, cell] of documentedRows()) {
    const key = camel(name)
    assert.ok(key in defaults, `${name}: no settings field ${key}`)
    const value = defaults[key]
    const literal = /^`([^`]*)`$/.exec(cell)
    if (literal) {
      assert.equal(String(value), literal[1], `${name} default`)
      checked++
    } else if (cell === 'none') {
      assert.ok(value === undefined || (Array.isArray(value) && value.length === 0), `${name} should have no default, has ${JSON.stringify(value)}`)
      checked++
    }
  }
  assert.ok(checked >= 18, `only ${checked} defaults checked`)
})
