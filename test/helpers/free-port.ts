// TCP ports on 127.0.0.1 for servers the tests start: one nothing listens on right now, for a
// server a test must name before it starts (a child process, a Redis of its own, a BASE_URL
// the app calls back on), or a server listened on a port of that kind.
//
// The ports come from outside the range the kernel hands out to outgoing connections
// (ip_local_port_range): below it, or above it where it starts low. A port from that range,
// given up for a moment (a proxy that stops listening to refuse connections, a server a test
// restarts on the same port), can be taken as the local end of any process's next connection
// (the suite opens thousands to PostgreSQL), and listening on it again then fails with
// EADDRINUSE. Outside the range a port is taken only by someone listening on it.
import { readFileSync } from 'node:fs'
import { randomInt } from 'node:crypto'
import { createServer, type AddressInfo, type Server } from 'node:net'

const LOWEST = 10_000
/**
 * Ports fetch refuses to connect to ("bad port", the Fetch standard's list) at or above
 * LOWEST: a test's fetch to a server listening there failed before it was sent.
 */
const FETCH_BLOCKED = new Set([10_080])

/** The kernel's range of ports for outgoing connections (Linux's default when unknown). */
function outgoingRange(): [number, number] {
  try {
    const [first, last] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number)
    if (Number.isInteger(first) && Number.isInteger(last) && first > 0 && last >= first) return [first, last]
  } catch {
    // Not Linux: its default.
  }
  return [32_768, 60_999]
}

/** Listens on `port` of 127.0.0.1; rejects with the listen error (EADDRINUSE: taken). */
export function listenOn(server: Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const listening = () => {
      server.off('error', failed)
      resolve()
    }
    const failed = (err: Error) => {
      server.off('listening', listening)
      reject(err)
    }
    server.once('error', failed)
    server.once('listening', listening)
    server.listen(port, '127.0.0.1')
  })
}

/**
 * Listens `server` on a free port outside the outgoing range (below it, or above it where the
 * range starts low) and returns it; any free port where neither side has room.
 */
export async function listenOnFreePort(server: Server): Promise<number> {
  const [first, last] = outgoingRange()
  const [low, high] = first - LOWEST > 1000 ? [LOWEST, first] : [last + 1, 65_536]
  for (let tries = 0; high - low > 1000 && tries < 50; tries++) {
    const port = randomInt(low, high)
    if (FETCH_BLOCKED.has(port)) continue
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
