// A loopback TCP proxy for fault injection: forwards to a real server (PostgreSQL) and can
// switch to refusing connections (nothing listens: ECONNREFUSED), black-holing them (accepts,
// then never answers; traffic on open connections is dropped), or cutting every open
// connection (as a network failure or a server restart would); and it can go silent on the
// connections that send a given statement.
import { createServer, connect, type Server, type Socket } from 'node:net'
import { listenOn, listenOnFreePort } from './free-port.js'

export type ProxyMode = 'forward' | 'refuse' | 'blackhole'

export interface TcpProxy {
  readonly port: number
  readonly mode: ProxyMode
  /** Connections accepted so far (forwarded or black-holed). */
  readonly accepted: number
  /** Accepted connections still open. */
  readonly connected: number
  /** Switches mode; `refuse` stops listening and cuts open connections, like a stopped server. */
  setMode(mode: ProxyMode): Promise<void>
  /**
   * From now on, a forwarded connection that sends `text` (a statement's, say) is black-holed
   * from that message on: the server never sees it, and nothing more comes back.
   */
  silence(text: string): void
  /** Destroys every open connection (both sides). */
  cut(): void
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward'
  const silenceOn: string[] = []
  let accepted = 0
  const open = new Set<Socket>()
  const track = (s: Socket) => {
    open.add(s)
    s.on('close', () => open.delete(s))
    s.on('error', () => {})
  }
  const clients = new Set<Socket>()
  const onConnection = (client: Socket) => {
    accepted++
    track(client)
    clients.add(client)
    client.on('close', () => clients.delete(client))
    if (mode === 'blackhole') {
      client.on('data', () => {}) // read and drop
      return
    }
    const upstream = connect(target.port, target.host)
    track(upstream)
    // Not piped: in black-hole mode traffic already flowing is dropped in both directions.
    let silenced = false
    client.on('data', (d: Buffer) => {
      if (silenceOn.some((text) => d.includes(text))) silenced = true
      if (mode === 'forward' && !silenced) upstream.write(d)
    })
    upstream.on('data', (d) => { if (mode === 'forward' && !silenced) client.write(d) })
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  }
  let server: Server = createServer(onConnection)
  // A port outside the kernel's range for outgoing connections (see free-port.ts): `refuse`
  // gives it up and the next mode takes it back.
  const port = await listenOnFreePort(server)

  const cut = () => { for (const s of [...open]) s.destroy() }
  const stopListening = () => new Promise<void>((resolve) => { server.close(() => resolve()); cut() })

  return {
    port,
    get mode() { return mode },
    get accepted() { return accepted },
    get connected() { return clients.size },
    async setMode(next) {
      if (next === mode) return
      if (next === 'refuse') {
        mode = next
        await stopListening()
        return
      }
      if (mode === 'refuse') {
        server = createServer(onConnection)
        await listenOn(server, port)
      }
      mode = next
    },
    silence(text) { silenceOn.push(text) },
    cut,
    async close() {
      if (mode !== 'refuse') await stopListening()
      cut()
    },
  }
}
