// Every status Gatehouse answers carries the error envelope, also the ones Fastify and Node
// would write on their own: a path parameter over the router's limit (414; MAX_PATH_PARAMETER), a URL that does
// not decode (400), request headers over 16 KiB (431), a request that is not HTTP (400), and
// a request arriving while the server closes (503). A real port: some of these are raised by
// the HTTP parser before any request object exists.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { MAX_PATH_PARAMETER } from '../../src/kernel/machine-route.js'
import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { REDIRECTS, REDIRECTS_SCOPE, redirectsApp, redirectsFile } from '../providers/helpers/provider-app.js'

/** Writes raw bytes on a new connection (more with `later`) and returns everything the server sent until it closed. */
function raw(port: number, text: string, later?: (write: (more: string) => void) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let received = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => { received += chunk })
    socket.on('error', reject)
    socket.on('close', () => resolve(received))
    socket.write(text)
    later?.((more) => socket.write(more))
    socket.setTimeout(5000, () => socket.destroy())
  })
}

interface Parsed { status: number; headers: Record<string, string>; body: string }

/** The HTTP answers in a byte stream (several when requests were pipelined). */
function answers(text: string): Parsed[] {
  const out: Parsed[] = []
  let rest = text
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n')
    const lines = rest.slice(0, end).split('\r\n')
    const headers: Record<string, string> = {}
    for (const l of lines.slice(1)) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim()
    const length = Number(headers['content-length'])
    out.push({ status: Number(lines[0].split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) })
    rest = rest.slice(end + 4 + length)
  }
  return out
}

function assertEnvelope(answer: Parsed | undefined, status: number, code: string): void {
  assert.ok(answer, `an answer ${status}`)
  assert.equal(answer.status, status, answer.body)
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/)
  const body = JSON.parse(answer.body)
  assert.deepEqual(Object.keys(body), ['error', 'requestId'])
  assert.equal(body.error.code, code)
  assert.equal(typeof body.error.message, 'string')
  assert.match(body.requestId, /^req_[0-9a-f]{20}$/)
  assert.equal(answer.headers['x-request-id'], body.requestId)
}

test('414, 400 and 431 from the router and the HTTP parser come in the error envelope with a request id', async (t) => {
  const app = await redirectsApp(t, redirectsFile(t, [{ id: 'r1', from: '/a', to: '/b' }]))
  const token = await app.issueToken([REDIRECTS_SCOPE])
  await app.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.app.server.address() as AddressInfo

  const long = await fetch(`http://127.0.0.1:${port}${REDIRECTS}/${'x'.repeat(MAX_PATH_PARAMETER + 1)}`, { headers: { authorization: `Bearer ${token}` } })
  assertEnvelope({ status: long.status, headers: Object.fromEntries(long.headers), body: await long.text() }, 414, 'URI_TOO_LONG')
  // At the router's limit, the route's schema answers (the id's bound is 256).
  const atLimit = await fetch(`http://127.0.0.1:${port}${REDIRECTS}/${'x'.repeat(MAX_PATH_PARAMETER)}`, { headers: { authorization: `Bearer ${token}` } })
  assert.equal(atLimit.status, 400)

  const badUrl = answers(await raw(port, `GET ${REDIRECTS}/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`))
  assertEnvelope(badUrl[0], 400, 'INVALID_REQUEST')
  assert.deepEqual(JSON.parse(badUrl[0].body).error.details, [{ param: '(path)', problem: 'invalid percent-encoding' }])

  const bigHeaders = answers(await raw(port, `GET /gatehouse/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`))
  assertEnvelope(bigHeaders[0], 431, 'HEADERS_TOO_LARGE')

  const notHttp = answers(await raw(port, 'HELLO THERE\r\n\r\n'))
  assertEnvelope(notHttp[0], 400, 'INVALID_REQUEST')
})

test('a request that arrives while the server closes is answered 503 SERVICE_UNAVAILABLE in the envelope, with Retry-After', async (t) => {
  // A slow request keeps its connection busy while close() begins (an idle one would be
  // closed); the second request, sent on that connection after close() began, is the one
  // Fastify would have refused with its own body.
  const app = await redirectsApp(t, redirectsFile(t, [{ id: 'r1', from: '/a', to: '/b' }]))
  const token = await app.issueToken([REDIRECTS_SCOPE])
  let release: () => void = () => {}
  let started: () => void = () => {}
  const inFlight = new Promise<void>((resolve) => { started = resolve })
  app.app.addHook('onRequest', async (request) => {
    if (request.headers['x-slow'] !== '1') return
    started()
    await new Promise<void>((r) => { release = r })
  })
  await app.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.app.server.address() as AddressInfo
  const head = (extra: string) => `GET ${REDIRECTS}/r1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n${extra}\r\n`
  let closed: Promise<void> | undefined
  const received = raw(port, head('X-Slow: 1\r\n'), (write) => {
    void inFlight.then(async () => {
      closed = app.app.close()
      await new Promise((r) => setTimeout(r, 50))
      write(head(''))
      await new Promise((r) => setTimeout(r, 50))
      release()
    })
  })
  const [first, second] = answers(await received)
  await closed
  assert.equal(first?.status, 200)
  assertEnvelope(second, 503, 'SERVICE_UNAVAILABLE')
  assert.equal(second.headers['retry-after'], '1')
})
