// A loopback TCP proxy for fault injection: forwards to a real server (PostgreSQL) and can
// switch to refusing connections (nothing listens: ECONNREFUSED), black-holing them (accepts,
// then never answers; traffic on open connections is dropped), or cutting every open
// connection (as a network failure or a server restart would).
import { createServer, connect, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

export type ProxyMode = 'forward' | 'refuse' | 'blackhole'

export interface TcpProxy {
  readonly port: number
  readonly mode: ProxyMode
  /** Connections accepted so far (forwarded or black-holed). */
  readonly accepted: number
  /** Switches mode; `refuse` stops listening and cuts open connections, like a stopped server. */
  setMode(mode: ProxyMode): Promise<void>
  /** Destroys every open connection (both sides). */
  cut(): void
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward'
  let accepted = 0
  const open = new Set<Socket>()
  const track = (s: Socket) => {
    open.add(s)
    s.on('close', () => open.delete(s))
    s.on('error', () => {})
  }
  const onConnection = (client: Socket) => {
    accepted++
    track(client)
    if (mode === 'blackhole') {
      client.on('data', () => {}) // read and drop
      return
    }
    const upstream = connect(target.port, target.host)
    track(upstream)
    // Not piped: in black-hole mode traffic already flowing is dropped in both directions.
    client.on('data', (d) => { if (mode === 'forward') upstream.write(d) })
    upstream.on('data', (d) => { if (mode === 'forward') client.write(d) })
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  }
  let server: Server = createServer(onConnection)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port

  const cut = () => { for (const s of [...open]) s.destroy() }
  const stopListening = () => new Promise<void>((resolve) => { server.close(() => resolve()); cut() })

  return {
    port,
    get mode() { return mode },
    get accepted() { return accepted },
    async setMode(next) {
      if (next === mode) return
      if (next === 'refuse') {
        mode = next
        await stopListening()
        return
      }
      if (mode === 'refuse') {
        server = createServer(onConnection)
        await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, '127.0.0.1', resolve) })
      }
      mode = next
    },
    cut,
    async close() {
      if (mode !== 'refuse') await stopListening()
      cut()
    },
  }
}
