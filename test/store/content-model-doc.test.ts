// docs/content-model.md is generated from the resource declarations; this fails when a
// declaration changes and the doc was not regenerated (npx tsx scripts/content-model-doc.ts --write).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { allResources } from '../../src/resources/index.js'
import { CONTENT_MODEL_PATH, contentModelMarkdown } from '../../scripts/content-model-doc.js'

test('docs/content-model.md is up to date with the declarations', () => {
  const onDisk = readFileSync(CONTENT_MODEL_PATH, 'utf8')
  assert.ok(onDisk === contentModelMarkdown(), 'docs/content-model.md is stale: run npx tsx scripts/content-model-doc.ts --write')
})

test('the content model documents every family, every field, and every sensitive and computed field', () => {
  const doc = contentModelMarkdown()
  for (const r of allResources) {
    const start = doc.indexOf(`\n## ${r.type}\n`)
    assert.ok(start >= 0, `section for ${r.type}`)
    const end = doc.indexOf('\n## ', start + 1)
    const section = doc.slice(start, end)
    for (const key of [...r.publicKeys, ...r.sensitiveKeys]) assert.ok(section.includes(`| \`${key}\` |`), `${r.type}.${key} documented`)
    for (const key of r.sensitiveKeys) assert.match(section, new RegExp(`\\| \`${key}\` \\|[^\\n]*\\*\\*sensitive\\*\\*`), `${r.type}.${key} marked sensitive`)
    for (const key of r.computed ?? []) assert.match(section, new RegExp(`\\| \`${key}\` \\|[^\\n]*computed: `), `${r.type}.${key} explained`)
    for (const v of r.status?.values ?? []) assert.ok(section.includes(`\`${v}\``), `${r.type} status ${v}`)
    for (const s of r.selectors ?? []) assert.ok(section.includes(`\`${s.name}\``), `${r.type} selector ${s.name}`)
  }
})
