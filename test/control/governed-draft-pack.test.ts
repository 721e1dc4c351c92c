// The governed-entry-draft starter pack end to end against a live server: each snippet
// (Node, Python when installed, curl) simulates and asks for approval on its first run; a
// decider approves; run again with GATEHOUSE_APPROVAL_ID it executes once and the draft
// holds the proposed title, while the entry itself is untouched.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DECIDER_SCOPES, controlApp } from './helpers/control-app.js'
import { runSnippet } from '../helpers/snippets.js'

interface Pack { templateId: string; available: boolean; requiredScopes: string[]; snippets: { language: 'curl' | 'node' | 'python'; filename: string; content: string }[] }

const has = (cmd: string, arg: string) => spawnSync(cmd, [arg]).status === 0

test('governed-entry-draft pack: request, approve, execute once, for every snippet language', async (t) => {
  const app = await controlApp('sqlite')
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-governed-'))
  t.after(async () => { await app.close(); rmSync(dir, { recursive: true, force: true }) })
  await app.app.listen({ port: 0, host: '127.0.0.1' })
  const baseUrl = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`
  // One person's approval is enough for drafts (the built-in policy would ask for two).
  await app.upsertPolicy({ handle: 'drafts', displayName: 'Entry drafts', actionPattern: 'entry.updateDraft', requiredApprovals: 1 })

  const packs = (await app.get('/gatehouse/v1/starter-packs?templateId=governed-entry-draft', await app.token(['templates:read']))).json().data as Pack[]
  assert.equal(packs[0].available, true)
  for (const s of packs[0].snippets) writeFileSync(join(dir, s.filename), s.content)
  const languages = packs[0].snippets.filter((s) => s.language === 'node' || (s.language === 'python' && has('python3', '--version')) || (s.language === 'curl' && has('curl', '--version')))
  assert.ok(languages.some((s) => s.language === 'node'))
  const entryBefore = await app.services.store.get('entries', app.ids.entries)

  for (const snippet of languages) {
    const title = `Revised by ${snippet.language}`
    const env = {
      GATEHOUSE_BASE_URL: baseUrl, GATEHOUSE_TOKEN: await app.token(packs[0].requiredScopes),
      GATEHOUSE_ENTRY_SLUG: 'hello-world', GATEHOUSE_ENTRY_ID: String(app.ids.entries), GATEHOUSE_DRAFT_TITLE: title,
    }
    const first = await runSnippet(dir, snippet.language, snippet.filename, env)
    assert.equal(first.status, 0, `${snippet.filename}: ${first.stderr}${first.stdout}`)
    assert.match(first.stdout, /"decision": ?"blocked"/, 'the simulation says approval is needed')
    const approvalId = /(apr_[A-Za-z0-9_-]+)/.exec(first.stdout)?.[1]
    assert.ok(approvalId, first.stdout)
    const decided = await app.decide(await app.token(DECIDER_SCOPES), approvalId, 'approve', 'fine')
    assert.equal(decided.json().data.status, 'approved')

    const second = await runSnippet(dir, snippet.language, snippet.filename, { ...env, GATEHOUSE_APPROVAL_ID: approvalId })
    assert.equal(second.status, 0, `${snippet.filename} second run: ${second.stderr}${second.stdout}`)
    assert.match(second.stdout, /succeeded/)
    const draftId = (await app.database.db.selectFrom('entry_drafts').select('id').where('name', '=', 'assistant-suggestion').executeTakeFirstOrThrow()).id as number
    assert.equal((await app.services.store.get('entry-drafts', draftId))?.title, title)
    // Run again with the same approval: the same Idempotency-Key answers the same execution.
    const third = await runSnippet(dir, snippet.language, snippet.filename, { ...env, GATEHOUSE_APPROVAL_ID: approvalId })
    assert.equal(third.status, 0)
    assert.equal(/(exe_[A-Za-z0-9_-]+)/.exec(third.stdout)?.[1], /(exe_[A-Za-z0-9_-]+)/.exec(second.stdout)?.[1])
  }
  assert.deepEqual(await app.services.store.get('entries', app.ids.entries), entryBefore, 'a draft never publishes')
  assert.equal(await app.count('control_executions'), languages.length)
})
