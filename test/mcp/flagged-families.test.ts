// A family switched off by its flag (users, addresses) is on no MCP surface, as its routes are
// 404 and its tools absent: no resource template, no record read (`Unknown resource`, not a
// scope refusal that tells the family exists), no subscription to it. Reading a user record
// answered it whole, email included, with the flag off.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'
import { connect } from './helpers/mcp-client.js'

test('with their flags off, users and addresses are no MCP resources; with them on, they are', async (t) => {
  for (const on of [false, true]) {
    const flags = { PLUGIN_GATEHOUSE_ENABLE_USERS_API: String(on), PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: String(on) }
    const app = await buildTestApp({ dialect: 'sqlite', env: flags })
    t.after(() => app.close())
    const user = await app.services.store.create('users', { username: 'priya', email: 'priya@example.com', fullName: 'Priya A' })
    const everything = await app.issueToken(['products:read', 'users:read', 'users:read_sensitive', 'addresses:read'])
    const narrow = await app.issueToken(['products:read'])
    const c = await connect(app, everything)
    const templates = (await c.client.listResourceTemplates()).resourceTemplates.map((x) => x.uriTemplate)
    assert.equal(templates.includes('gatehouse://records/users/{id}'), on, `users template with the flag ${on ? 'on' : 'off'}`)
    assert.equal(templates.includes('gatehouse://records/addresses/{id}'), on)
    for (const uri of [`gatehouse://records/users/${String(user.id)}`, 'gatehouse://records/users', 'gatehouse://records/addresses']) {
      if (on) assert.ok((await c.client.readResource({ uri })).contents.length > 0, uri)
      else await assert.rejects(c.client.readResource({ uri }), /Unknown resource: .*no family (users|addresses) is served/, uri)
    }
    await c.client.close()
    if (!on) {
      const n = await connect(app, narrow)
      await assert.rejects(n.client.readResource({ uri: `gatehouse://records/users/${String(user.id)}` }), /Unknown resource/)
      await n.client.close()
    }
  }
})
