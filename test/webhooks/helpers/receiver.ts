// A local webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every
// request (headers, raw body, arrival time) and answers as the test tells it to.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly at: number
  readonly url: string
}

/** Answers a request; the default is 200. */
export type Responder = (req: Received, res: ServerResponse) => void | Promise<void>

export interface Receiver {
  readonly url: string
  readonly port: number
  readonly received: Received[]
  respond: Responder
  /** Resolves once `predicate` holds for the received list (polling), or rejects after `timeoutMs`. */
  waitFor(predicate: (received: readonly Received[]) => boolean, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

export async function startReceiver(path = '/hook', respond: Responder = (_r, res) => { res.writeHead(200).end('ok') }): Promise<Receiver> {
  const received: Received[] = []
  const receiver = { respond } as Receiver & { respond: Responder }
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const r: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), url: req.url ?? '' }
      received.push(r)
      Promise.resolve(receiver.respond(r, res)).catch(() => res.writeHead(500).end())
    })
  })
  server.keepAliveTimeout = 1000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    received,
    async waitFor(predicate: (r: readonly Received[]) => boolean, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs
      while (!predicate(received)) {
        if (Date.now() > until) throw new Error(`receiver: condition not met within ${timeoutMs} ms (${received.length} received)`)
        await new Promise((r) => setTimeout(r, 20))
      }
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  })
}

/** The parsed JSON body of a received delivery. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const payloadOf = (r: Received): any => JSON.parse(r.body)
