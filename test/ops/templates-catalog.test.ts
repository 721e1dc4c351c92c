// The template catalog against the route registry: every step of every template resolves to
// a registered route with its schema key and scope, every scope exists and is declared by
// the template, and starter packs declare every environment variable their snippets read.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'
import { isKnownScope } from '../helpers/scopes.js'
import { templateCatalog } from '../../src/ops/templates/catalog.js'

interface Step { method: string; path: string; schemaKey: string | null; scope: string | null }
interface Template { id: string; requiredScopes: string[]; optionalScopes: string[]; requiresExperimental: boolean; available: boolean; unavailableReason: string | null; endpointSequence: Step[] }
interface Pack { templateId: string; env: { name: string; required: boolean }[]; snippets: { language: string; filename: string; run: string; content: string }[] }

test('every template step resolves in the route registry with its schema key and scope', async () => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' } })
  try {
    const token = await app.issueToken(['templates:read'])
    const res = await app.get('/gatehouse/v1/templates', token)
    assert.equal(res.statusCode, 200, res.body)
    const templates = res.json().data as Template[]
    assert.ok(templates.length >= 4)
    for (const id of ['catalog-sync', 'support-context', 'webhook-cache-refresh', 'governed-entry-draft']) assert.ok(templates.some((t) => t.id === id), id)
    assert.equal(templates.find((t) => t.id === 'governed-entry-draft')?.requiresExperimental, true)

    for (const t of templates) {
      for (const s of [...t.requiredScopes, ...t.optionalScopes]) assert.ok(isKnownScope(s), `${t.id}: scope ${s} exists`)
      const declared = new Set([...t.requiredScopes, ...t.optionalScopes])
      for (const step of t.endpointSequence) {
        const route = app.routes.find((r) => r.method === step.method && r.path === step.path)
        if (!route) {
          // Only the experimental control plane may be missing from an installation, and then
          // the template says so instead of pointing at routes that do not exist.
          assert.ok(t.requiresExperimental && step.path.startsWith('/control/'), `${t.id}: ${step.method} ${step.path} is a registered route`)
          assert.equal(t.available, false)
          assert.match(t.unavailableReason ?? '', new RegExp(`${step.method} ${step.path}`))
          assert.equal(step.schemaKey, null)
          continue
        }
        assert.equal(step.schemaKey, route.key, `${t.id}: ${step.path} schema key`)
        assert.equal(step.scope, route.scope)
        assert.ok(declared.has(route.scope), `${t.id}: ${step.path} needs ${route.scope}, which the template declares`)
        // The key is the one /schema answers for.
        const schema = await app.get(`/gatehouse/v1/schema?endpoint=${route.key}`, await app.issueToken(['schema:read']))
        assert.equal(schema.statusCode, 200, `${route.key} in the schema catalog: ${schema.body.slice(0, 200)}`)
      }
      if (!t.requiresExperimental) assert.equal(t.available, true, `${t.id}: ${t.unavailableReason}`)
    }

    const one = await app.get('/gatehouse/v1/templates?id=catalog-sync', token)
    assert.deepEqual(one.json().data.map((t: Template) => t.id), ['catalog-sync'])
    const unknown = await app.get('/gatehouse/v1/templates?id=nope', token)
    assert.equal(unknown.statusCode, 400)
    assert.equal(unknown.json().error.details[0].param, 'id')
    const denied = await app.get('/gatehouse/v1/templates', await app.issueToken(['health:read']))
    assert.equal(denied.json().error.message, 'Missing required scope: templates:read')
  } finally {
    await app.close()
  }
})

test('a flag-gated step makes its template unavailable, naming the setting', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    // Users are behind PLUGIN_GATEHOUSE_ENABLE_USERS_API; resolve a made-up template through the same code.
    const { resolveTemplate } = await import('../../src/api/ops/template-routes.js')
    const t = { ...templateCatalog[0], id: 'x', steps: [{ method: 'GET' as const, path: '/users', purpose: 'p' }] }
    const r = resolveTemplate(t, app.routes, app.services.settings)
    assert.equal(r.available, false)
    assert.match(r.unavailableReason ?? '', /switched off: needs enableUsersApi/)
    assert.equal(r.endpointSequence[0].schemaKey, 'users.list')
  } finally {
    await app.close()
  }
})

test('starter packs: curl, Node and Python snippets, and every variable they read is declared', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    const token = await app.issueToken(['templates:read'])
    const packs = (await app.get('/gatehouse/v1/starter-packs', token)).json().data as Pack[]
    assert.deepEqual(packs.map((p) => p.templateId), templateCatalog.map((t) => t.id))
    for (const p of packs) {
      assert.deepEqual(p.snippets.map((s) => s.language), ['curl', 'node', 'python'])
      const declared = new Set(p.env.map((e) => e.name))
      assert.ok(declared.has('GATEHOUSE_BASE_URL') && declared.has('GATEHOUSE_TOKEN'))
      for (const s of p.snippets) {
        assert.ok(s.content.length > 200, `${p.templateId}/${s.language} has content`)
        assert.ok(s.run.endsWith(s.filename))
        for (const name of new Set(s.content.match(/\b(GATEHOUSE_[A-Z_]+|RECEIVER_PORT)\b/g) ?? [])) {
          assert.ok(declared.has(name), `${p.templateId}/${s.filename} reads ${name}, which the pack declares`)
        }
      }
    }
    const one = await app.get('/gatehouse/v1/starter-packs?templateId=support-context', token)
    assert.equal(one.json().data.length, 1)
    assert.equal((await app.get('/gatehouse/v1/starter-packs?templateId=zzz', token)).json().error.details[0].param, 'templateId')
  } finally {
    await app.close()
  }
})
