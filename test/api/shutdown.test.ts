// Shutting down does not wait for what has nothing left to do, nor for ever: a connection a
// client opened and never sent a request on is closed at once (before, the server waited for
// the idle timeout: from server.close() on, Node no longer enforces the header and request
// timeouts), a client still trickling its request is cut off after the request timeout, and an
// MCP listen stream is ended with the protocol's graceful completion result. The idle timeout
// is set to a minute so that waiting for it cannot pass for promptness.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { buildTestApp, type TestApp } from '../helpers/test-app.js'

const MINUTE = { PLUGIN_GATEHOUSE_HTTP_IDLE_TIMEOUT_MS: '60000', PLUGIN_GATEHOUSE_HTTP_HEADERS_TIMEOUT_MS: '60000', PLUGIN_GATEHOUSE_HTTP_REQUEST_TIMEOUT_MS: '60000' }

async function listening(app: TestApp): Promise<number> {
  await app.app.listen({ port: 0, host: '127.0.0.1' })
  return (app.app.server.address() as AddressInfo).port
}

/** app.close(), failing if it takes longer than `ms` (the app is then closed harder). */
async function closesWithin(app: TestApp, ms: number): Promise<number> {
  const started = Date.now()
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`close() still waiting after ${ms} ms`)), ms) })
  try {
    await Promise.race([app.close(), late])
  } catch (err) {
    app.app.server.closeAllConnections()
    throw err
  } finally {
    clearTimeout(timer)
  }
  return Date.now() - started
}

test('closing does not wait for a connection that never sent a request', async () => {
  const app = await buildTestApp({ dialect: 'sqlite', env: MINUTE })
  const port = await listening(app)
  // One keep-alive connection that has served a request, one that never sent a byte.
  const used = await fetch(`http://127.0.0.1:${port}/livez`)
  assert.equal(used.status, 200)
  await used.text()
  const unused: Socket = connect(port, '127.0.0.1')
  await new Promise((resolve) => unused.once('connect', resolve))
  const unusedClosed = new Promise((resolve) => unused.once('close', () => resolve(true)))
  unused.on('error', () => {})

  await closesWithin(app, 5000)
  assert.equal(await unusedClosed, true)
})

test('a client still trickling its request holds the shutdown no longer than the request timeout', async () => {
  const app = await buildTestApp({ dialect: 'sqlite', env: { ...MINUTE, PLUGIN_GATEHOUSE_HTTP_REQUEST_TIMEOUT_MS: '2000' } })
  const port = await listening(app)
  const slow: Socket = connect(port, '127.0.0.1')
  await new Promise((resolve) => slow.once('connect', resolve))
  slow.on('error', () => {})
  let cut = false
  const closed = new Promise((resolve) => slow.once('close', () => { cut = true; resolve(true) }))
  slow.write('GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n')
  const trickle = setInterval(() => { if (!slow.destroyed) slow.write('X-Slow: 1\r\n') }, 100)
  try {
    // The server has read part of the request, and its 2 s request timeout has not cut it off.
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(cut, false, 'the request was still arriving when the server began to close')
    const took = await closesWithin(app, 6000)
    assert.ok(took >= 1900, `closed after ${took} ms, before the request timeout`)
    assert.equal(await closed, true)
  } finally {
    clearInterval(trickle)
    slow.destroy()
  }
})

test('an MCP listen stream open at shutdown ends with the graceful completion result, and closing does not wait for it', async () => {
  const app = await buildTestApp({ dialect: 'sqlite', env: MINUTE })
  const port = await listening(app)
  const token = await app.issueToken(['entries:read', 'changes:read'])
  const id = 'listen-at-shutdown'
  const res = await fetch(`http://127.0.0.1:${port}/gatehouse/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0', id, method: 'subscriptions/listen',
      params: {
        notifications: { resourceSubscriptions: ['gatehouse://records/entries'] },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw-agent', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  })
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/)
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  let text = ''
  while (!text.includes('\n\n')) text += (await reader.read()).value ?? ''
  const messages = () => text.split('\n\n').filter((e) => e.startsWith('event: message')).map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)))
  assert.equal(messages()[0].method, 'notifications/subscriptions/acknowledged')

  // The stream is read to its end while the app closes.
  await Promise.all([
    closesWithin(app, 5000),
    (async () => { for (let r = await reader.read(); !r.done; r = await reader.read()) text += r.value })(),
  ])
  const last = messages().at(-1)
  assert.deepEqual(last, { jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': id } } })
})
