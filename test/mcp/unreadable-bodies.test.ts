// A body the MCP endpoint cannot read as a message is answered as JSON-RPC, which a client's
// SDK reads as a protocol error: -32700 for text that is no JSON, -32600 for JSON the body
// rules refuse (nested too deeply, a number beyond ±2^53 − 1). Authentication still comes
// first, and other refusals (a media type) keep the HTTP API's envelope.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/test-app.js'
import { MCP } from './helpers/mcp-client.js'

test('unreadable MCP bodies are JSON-RPC errors after authentication', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  const token = await app.issueToken(['products:read'])
  const post = (payload: string, opts: { token?: string | null; type?: string } = {}) => app.app.inject({
    method: 'POST', url: MCP, payload,
    headers: { 'content-type': opts.type ?? 'application/json', accept: 'application/json, text/event-stream', ...(opts.token === null ? {} : { authorization: `Bearer ${opts.token ?? token}` }) },
  })
  const broken = await post('{"jsonrpc":"2.0","id":1,')
  assert.equal(broken.statusCode, 400)
  assert.deepEqual(broken.json(), { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not valid JSON' }, id: null })
  const deep = await post('['.repeat(100) + ']'.repeat(100))
  assert.equal(deep.json().error.code, -32600)
  const inexact = await post('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_products","arguments":{"id":9007199254740993}}}')
  assert.equal(inexact.statusCode, 400)
  assert.equal(inexact.json().error.code, -32600)
  assert.match(inexact.json().error.message, /^Invalid Request: params\.arguments\.id must be between/)

  const anonymous = await post('{"jsonrpc":"2.0","id":1,', { token: null })
  assert.equal(anonymous.statusCode, 401)
  assert.equal(anonymous.json().error.code, 'UNAUTHORIZED')
  assert.ok(anonymous.headers['www-authenticate'])
  const text = await post('hello', { type: 'text/plain' })
  assert.equal(text.statusCode, 415)
  assert.equal(text.json().error.code, 'UNSUPPORTED_MEDIA_TYPE')
})
