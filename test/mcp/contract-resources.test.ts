// The MCP resources are the machine-readable contract: the OpenAPI document and the
// capabilities as the HTTP API serves them, and the content model from the declarations;
// each is listed and readable only with the scope its HTTP route needs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { toJsonSchema } from '../../src/contract/json-schema.js'
import { buildTestApp } from '../helpers/test-app.js'
import { connect } from './helpers/mcp-client.js'

const URIS = { openapi: 'gatehouse://contract/openapi.json', capabilities: 'gatehouse://contract/capabilities', model: 'gatehouse://contract/content-model' }

test('OpenAPI, capabilities and content model as resources, by scope', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true' } })
  t.after(() => app.close())
  const token = await app.issueToken(['openapi:read', 'capabilities:read', 'schema:read', 'products:read'])
  const mcp = await connect(app, token)
  const { resources } = await mcp.client.listResources()
  assert.deepEqual(resources.map((r) => [r.uri, r.mimeType]), [[URIS.openapi, 'application/json'], [URIS.capabilities, 'application/json'], [URIS.model, 'application/json']])

  const read = async (uri: string) => {
    const { contents } = await mcp.client.readResource({ uri })
    assert.equal(contents.length, 1)
    return (contents[0] as { text: string }).text
  }
  assert.equal(await read(URIS.openapi), (await app.get(`${BASE_PATH}/openapi.json`, token)).body)

  const capabilities = JSON.parse(await read(URIS.capabilities))
  assert.deepEqual(capabilities, (await app.get(`${BASE_PATH}/capabilities`, token)).json().data)
  assert.equal(capabilities.discovery.mcp, '/gatehouse/mcp')

  const model = JSON.parse(await read(URIS.model))
  const families = app.services.resources.enabled(app.services.settings)
  assert.deepEqual(model.families.map((f: { type: string }) => f.type), families.map((r) => r.type))
  const users = model.families.find((f: { type: string }) => f.type === 'users')
  const declared = families.find((r) => r.type === 'users')
  assert.ok(declared)
  assert.deepEqual(users.item, toJsonSchema(declared.fullItem))
  assert.equal(users.sensitiveScope, 'users:read_sensitive')
  const entries = model.families.find((f: { type: string }) => f.type === 'entries')
  assert.deepEqual(entries.statuses, { values: ['live', 'pending', 'disabled', 'expired'], default: 'live', otherStatusesScope: 'entries:read_all_statuses' })
  assert.ok(!model.families.some((f: { type: string }) => f.type === 'addresses'), 'a family whose flag is off is not in the model')
  await mcp.client.close()

  // Without the scopes: nothing listed, and reading names the scope.
  const plain = await connect(app, await app.issueToken(['products:read']))
  assert.deepEqual((await plain.client.listResources()).resources, [])
  await assert.rejects(plain.client.readResource({ uri: URIS.openapi }), /Missing required scope: openapi:read/)
  await assert.rejects(plain.client.readResource({ uri: 'gatehouse://contract/secrets' }), /Unknown resource/)
  await plain.client.close()
})
