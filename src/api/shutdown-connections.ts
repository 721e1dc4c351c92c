// A closing server waits until its connections have ended, and from `server.close()` on Node no
// longer enforces the header and request timeouts (it stops the sweep that checks them). Node
// closes the connections idle between two requests and Gatehouse ends its own streams (MCP
// listen), but two kinds still held a shutdown:
// - a connection a client opened and has not sent a byte on yet: Node counts it as busy, so the
//   shutdown waited for the idle timeout (60 s by default). HTTP clients open them ahead of need
//   (Node's fetch did, beside an MCP listen stream it aborted). They are closed as the server
//   starts closing, and any that arrive while it closes are refused;
// - a request still arriving (a client trickling its headers or body) or still being answered:
//   after `graceMs` (the request timeout), whatever is left is closed, so a shutdown ends.
import type { FastifyInstance } from 'fastify'
import type { Socket } from 'node:net'

export function closeConnectionsOnShutdown(app: FastifyInstance, opts: { graceMs: number }): void {
  const open = new Set<Socket>()
  let closing = false
  let grace: NodeJS.Timeout | undefined
  app.server.on('connection', (socket: Socket) => {
    if (closing) return void socket.destroy()
    open.add(socket)
    socket.once('close', () => open.delete(socket))
  })
  app.addHook('preClose', (done) => {
    closing = true
    // Bytes still in the kernel's buffer are not counted yet: a request sent at this very
    // moment on a new connection is reset, as Node's own closing of idle connections may.
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy()
    grace = setTimeout(() => app.server.closeAllConnections(), opts.graceMs).unref()
    done()
  })
  app.addHook('onClose', (_instance, done) => {
    clearTimeout(grace)
    done()
  })
}
