// A closing server waits until its connections have ended. Node closes those idle between two
// requests, and Gatehouse ends its own streams (MCP listen), but a connection a client opened
// and has not sent a byte on counts as busy until its headers timeout (10 s by default): HTTP
// clients open them ahead of need (Node's fetch did, beside an MCP listen stream it aborted),
// and a shutdown waited for each of them. Such connections carry no request to finish, so they
// are closed as the server starts closing, and any that arrive while it closes are refused.
import type { FastifyInstance } from 'fastify'
import type { Socket } from 'node:net'

export function closeUnusedConnections(app: FastifyInstance): void {
  const open = new Set<Socket>()
  let closing = false
  app.server.on('connection', (socket: Socket) => {
    if (closing) return void socket.destroy()
    open.add(socket)
    socket.once('close', () => open.delete(socket))
  })
  app.addHook('preClose', (done) => {
    closing = true
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy()
    done()
  })
}
