// Families behind a flag that is off (users, addresses) are unknown types everywhere a type is
// named: /changes `types`, the change filter, checkpoint and lag `resourceType`. With the flag
// on they are accepted.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'

const SCOPES = ['changes:read', 'users:read', 'addresses:read', 'products:read', 'syncstate:write', 'syncstate:read']

test('with the users and addresses flags off, users and addresses are refused as change and checkpoint types, listing the valid ones', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(SCOPES)

  const feed = await app.get('/gatehouse/v1/changes?types=products,users', token)
  assert.equal(feed.statusCode, 400)
  const [detail] = feed.json().error.details
  assert.equal(detail.param, 'types')
  assert.match(detail.problem, /^unknown type users; must be one of: products, variants, /)
  assert.doesNotMatch(detail.problem.split('must be one of: ')[1], /\b(users|addresses)\b/)
  assert.equal((await app.get('/gatehouse/v1/changes?filter=resourceType:addresses', token)).statusCode, 400)

  const checkpoint = await app.post('/gatehouse/v1/sync-state/checkpoint', { resourceType: 'users' }, token)
  assert.equal(checkpoint.statusCode, 400)
  assert.equal(checkpoint.json().error.details[0].param, 'resourceType')
  assert.match(checkpoint.json().error.details[0].problem, /^must be one of: products, variants, /)
  assert.doesNotMatch(checkpoint.json().error.details[0].problem, /\b(users|addresses)\b/)
  const lag = await app.get('/gatehouse/v1/sync-state/lag?resourceType=addresses', token)
  assert.equal(lag.statusCode, 400)
  assert.equal(lag.json().error.details[0].param, 'resourceType')
  assert.equal(await app.database.db.selectFrom('sync_checkpoints').select('resource_type').executeTakeFirst(), undefined)
})

test('with the flags on, users and addresses are change and checkpoint types', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true', PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true' } })
  t.after(() => app.close())
  const token = await app.issueToken(SCOPES)
  assert.equal((await app.get('/gatehouse/v1/changes?types=users,addresses', token)).statusCode, 200)
  assert.equal((await app.post('/gatehouse/v1/sync-state/checkpoint', { resourceType: 'users' }, token)).statusCode, 200)
  assert.equal((await app.get('/gatehouse/v1/sync-state/lag?resourceType=addresses', token)).statusCode, 200)
})
