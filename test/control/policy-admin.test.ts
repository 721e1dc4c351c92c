// Policies on the admin API: list (the built-in one last), create or edit with every bad
// field named, audited with the admin as actor; the simulator for any credential, with no
// side effects; and none of it while the control plane is off.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'
import { listAudit } from '../../src/control/audit-log.js'

const ADMIN = 'policy-admin-token-0123456789abcdef'
const POLICIES = '/gatehouse/admin/v1/control/policies'
const UPSERT = '/gatehouse/admin/v1/control/policies/upsert'
const SIMULATE = '/gatehouse/admin/v1/control/policy-simulate'

test('admins create, edit and list policies and simulate as a credential through the admin API', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true', PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN } })
  t.after(() => app.close())
  const product = await app.services.store.create('products', { type: 'mug', title: 'Mug', slug: 'mug' }) as { id: number }
  const variant = await app.services.store.create('variants', { productId: product.id, sku: 'MUG', title: 'Mug', price: 10, stock: 2 }) as { id: number }
  const { credential } = await app.services.credentials.create({ label: 'agent', scopes: ['control:actions:execute'] })

  const created = await app.post(UPSERT, { handle: 'prices', displayName: 'Prices', actionPattern: 'variant.setPrice', requiresApproval: false, limits: { maxPriceChangePercent: 20 } }, ADMIN)
  assert.equal(created.statusCode, 200)
  assert.equal(created.json().meta.created, true)
  assert.equal(created.json().data.updatedBy, 'admin:admin-token')
  const edited = await app.post(UPSERT, { handle: 'prices', displayName: 'Prices', actionPattern: 'variant.setPrice', requiresApproval: false, limits: { maxPriceChangePercent: 50 } }, ADMIN)
  assert.equal(edited.statusCode, 200)
  assert.equal(edited.json().meta.created, false)
  assert.equal(edited.json().data.limits.maxPriceChangePercent, 50)
  const list = (await app.get(POLICIES, ADMIN)).json().data
  assert.deepEqual(list.map((p: { handle: string; builtIn: boolean }) => [p.handle, p.builtIn]), [['prices', false], ['builtin-default', true]])

  const bad = await app.post(UPSERT, { handle: 'Not Valid', displayName: 7, actionPattern: 'variant.setPrice', approvalTtlMinutes: '60' }, ADMIN)
  assert.equal(bad.statusCode, 400)
  assert.deepEqual(bad.json().error.details.map((d: { param: string }) => d.param).sort(), ['approvalTtlMinutes', 'displayName', 'handle'])
  const nothing = await app.post(UPSERT, { handle: 'none', displayName: 'None', actionPattern: 'nothing.*' }, ADMIN)
  assert.equal(nothing.statusCode, 400)
  assert.equal(nothing.json().error.details[0].param, 'actionPattern')
  assert.equal((await app.post(UPSERT, { handle: 'x', displayName: 'x', actionPattern: '*' })).statusCode, 401)

  const audit = (await listAudit(app.database.db, { category: 'policy', limit: 10 })).items
  assert.deepEqual(audit.map((r) => [r.action, r.actor.type, r.actor.id]), [['create', 'admin', 'admin-token'], ['update', 'admin', 'admin-token']])

  // The simulator answers as the credential would be answered, and writes nothing.
  const before = (await listAudit(app.database.db, { limit: 200 })).items.length
  const sim = await app.post(SIMULATE, { credentialId: credential.id, actionType: 'variant.setPrice', payload: { variantId: variant.id, price: 30 } }, ADMIN)
  assert.equal(sim.statusCode, 200)
  const r = sim.json().data
  assert.equal(r.decision, 'blocked')
  assert.equal(r.policy.handle, 'prices')
  assert.deepEqual(r.limits.map((l: { name: string; max: number; actual: number; ok: boolean }) => [l.name, l.max, l.actual, l.ok]), [['maxPriceChangePercent', 50, 200, false]])
  const ok = (await app.post(SIMULATE, { credentialId: credential.id, actionType: 'variant.setPrice', payload: { variantId: variant.id, price: 12 } }, ADMIN)).json().data
  assert.equal(ok.decision, 'execute')
  assert.equal((await app.services.store.get('variants', variant.id) as { price: number }).price, 10, 'simulation changes nothing')
  assert.equal((await listAudit(app.database.db, { limit: 200 })).items.length, before, 'and records nothing')
  assert.equal((await app.post(SIMULATE, { credentialId: 'cred_nobody', actionType: 'variant.setPrice', payload: {} }, ADMIN)).statusCode, 404)
  const badSim = await app.post(SIMULATE, { credentialId: credential.id, actionType: 'variant.setPrice', payload: 'x' }, ADMIN)
  assert.equal(badSim.statusCode, 400)
  assert.equal(badSim.json().error.details[0].param, 'payload')
})

test('without the experimental flag there are no policy routes', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN } })
  t.after(() => app.close())
  assert.equal((await app.get(POLICIES, ADMIN)).statusCode, 404)
  assert.equal((await app.post(SIMULATE, { credentialId: 'x', actionType: 'variant.setPrice', payload: {} }, ADMIN)).statusCode, 404)
})
