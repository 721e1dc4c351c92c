// Slow clients cannot hold connections open: headers trickled or never sent are cut off at the
// header timeout, a body trickled byte by byte at the request timeout, an idle keep-alive
// connection at the keep-alive timeout, while ordinary requests keep being served. Raw
// sockets against a real port, with the limits shortened through their settings.
// npm test: timing (connections closed within the HTTP timeouts, normal requests within 500 ms)
// npm test: waits (mostly waiting, little CPU: runs in the waiting lane beside the other groups)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { buildTestApp } from '../helpers/test-app.js'

const HEADERS_MS = 600
const REQUEST_MS = 1500
const KEEP_ALIVE_MS = 400
// Deadlines are checked every quarter of the header timeout; allow that, and a loaded machine.
const SLACK_MS = 600

interface Watched { readonly socket: Socket; readonly opened: number; closedAfter?: number; received: string }

function open(port: number, sockets: Socket[], onConnect?: (s: Socket) => void): Promise<Watched> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    sockets.push(socket)
    const w: Watched = { socket, opened: Date.now(), received: '' }
    socket.on('data', (d) => { w.received += d.toString() })
    socket.on('error', () => {})
    socket.on('close', () => { w.closedAfter = Date.now() - w.opened })
    socket.once('connect', () => { onConnect?.(socket); resolve(w) })
    socket.once('error', reject)
  })
}

/** Writes `chunks` one by one every `everyMs` while the socket is open. */
function trickle(socket: Socket, chunks: readonly string[], everyMs: number): NodeJS.Timeout {
  let i = 0
  const timer = setInterval(() => {
    if (socket.destroyed || i >= chunks.length) return clearInterval(timer)
    socket.write(chunks[i++])
  }, everyMs)
  return timer
}

const waitUntil = async (cond: () => boolean, ms: number) => {
  const until = Date.now() + ms
  while (!cond() && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
}

test('50 slow-header connections and a 1 byte/s body are closed within the documented limits while normal requests are served', async (t) => {
  const app = await buildTestApp({
    dialect: 'sqlite',
    env: {
      PLUGIN_GATEHOUSE_HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS), PLUGIN_GATEHOUSE_HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      PLUGIN_GATEHOUSE_HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS), PLUGIN_GATEHOUSE_HTTP_IDLE_TIMEOUT_MS: '10000',
    },
  })
  const sockets: Socket[] = []
  const timers: NodeJS.Timeout[] = []
  // Whatever happens, stop the slow clients first: close() waits for open connections.
  t.after(async () => {
    timers.forEach(clearInterval)
    sockets.forEach((s) => s.destroy())
    await app.close()
  })
  await app.app.listen({ host: '127.0.0.1', port: 0 })
  const port = (app.app.server.address() as AddressInfo).port
  const token = await app.issueToken(['syncstate:write', 'health:read'])
  const health = () => fetch(`http://127.0.0.1:${port}/gatehouse/v1/health`, { headers: { authorization: `Bearer ${token}` } })
  await (await health()).text() // warm up the client and the credential cache

  // 40 connections trickle a header line every 150 ms and never finish; 10 send nothing at all.
  const slow: Watched[] = []
  for (let i = 0; i < 50; i++) {
    slow.push(await open(port, sockets, (s) => {
      if (i >= 40) return
      s.write('GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n')
      timers.push(trickle(s, Array.from({ length: 100 }, (_, n) => `X-Slow-${n}: ${'x'.repeat(10)}\r\n`), 150))
    }))
  }
  // A POST whose body arrives at one byte per second.
  const body = JSON.stringify({ resourceType: 'products' })
  const slowBody = await open(port, sockets, (s) => {
    s.write(`POST /gatehouse/v1/sync-state/checkpoint HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`)
    timers.push(trickle(s, body.split(''), 1000))
  })

  // Meanwhile ordinary requests are answered promptly.
  const served: number[] = []
  for (let i = 0; i < 5; i++) {
    const started = Date.now()
    const res = await health()
    assert.equal(res.status, 200)
    await res.text()
    served.push(Date.now() - started)
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.ok(Math.max(...served) < 500, `normal requests served in ${served.join(', ')} ms`)

  await waitUntil(() => slow.every((w) => w.closedAfter !== undefined), HEADERS_MS + SLACK_MS + 500)
  const open_ = slow.filter((w) => w.closedAfter === undefined).length
  assert.equal(open_, 0, `${open_} slow-header connections still open after ${HEADERS_MS + SLACK_MS + 500} ms`)
  const latest = Math.max(...slow.map((w) => w.closedAfter as number))
  assert.ok(latest <= HEADERS_MS + SLACK_MS, `slow-header connections closed within ${latest} ms (limit ${HEADERS_MS} ms)`)
  assert.ok(slow.slice(0, 40).every((w) => w.received === '' || /^HTTP\/1\.1 408/.test(w.received)), 'answered 408 or simply closed')

  await waitUntil(() => slowBody.closedAfter !== undefined, REQUEST_MS + SLACK_MS + 500)
  assert.ok(slowBody.closedAfter !== undefined, 'the 1 byte/s body is cut off')
  assert.ok((slowBody.closedAfter as number) <= REQUEST_MS + SLACK_MS, `closed after ${slowBody.closedAfter} ms (limit ${REQUEST_MS} ms)`)
  assert.ok((slowBody.closedAfter as number) >= REQUEST_MS - 100, 'not before its limit')
  assert.equal(await app.database.db.selectFrom('sync_checkpoints').select('integration_key').executeTakeFirst(), undefined, 'the partial request wrote nothing')

  // An idle keep-alive connection is closed after the keep-alive timeout.
  const idle = await open(port, sockets, (s) => s.write(`GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`))
  await waitUntil(() => idle.closedAfter !== undefined, KEEP_ALIVE_MS + 3000)
  assert.match(idle.received, /^HTTP\/1\.1 200/)
  // Node closes an idle keep-alive socket up to a second after its timeout (its own margin).
  assert.ok(idle.closedAfter !== undefined && idle.closedAfter <= KEEP_ALIVE_MS + 1000 + SLACK_MS, `idle keep-alive closed after ${idle.closedAfter} ms`)
})
