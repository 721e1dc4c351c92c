// TCP ports on 127.0.0.1 for servers the tests start: one nothing listens on right now, for a
// server a test must name before it starts (a child process, a Redis of its own, a BASE_URL
// the app calls back on), or a server listened on a port of that kind.
//
// The ports come from below the range the kernel hands out to outgoing connections
// (ip_local_port_range). A port from that range, given up for a moment (a proxy that stops
// listening to refuse connections, a server a test restarts on the same port), can be taken
// as the local end of any process's next connection (the suite opens thousands to
// PostgreSQL), and listening on it again then fails with EADDRINUSE. Below the range a port
// is taken only by someone listening on it.
import { readFileSync } from 'node:fs'
import { randomInt } from 'node:crypto'
import { createServer, type AddressInfo, type Server } from 'node:net'

const LOWEST = 10_000

/** The first port of the kernel's range for outgoing connections (Linux's default when unknown). */
function outgoingRangeStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    return Number.isInteger(first) && first > 0 ? first : 32_768
  } catch {
    return 32_768
  }
}

/** Listens on `port` of 127.0.0.1; rejects with the listen error (EADDRINUSE: taken). */
export function listenOn(server: Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (err: Error) => reject(err)
    server.once('error', failed)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', failed)
      resolve()
    })
  })
}

/** Listens `server` on a free port below the outgoing range (any free port where there is none) and returns it. */
export async function listenOnFreePort(server: Server): Promise<number> {
  const top = outgoingRangeStart()
  for (let tries = 0; top - LOWEST > 1000 && tries < 50; tries++) {
    const port = randomInt(LOWEST, top)
    try {
      await listenOn(server, port)
      return port
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err
    }
  }
  await listenOn(server, 0)
  return (server.address() as AddressInfo).port
}

export async function freePort(): Promise<number> {
  const server = createServer()
  const port = await listenOnFreePort(server)
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
