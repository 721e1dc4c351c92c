// A TCP port on 127.0.0.1 that nothing listens on right now, for a server a test must name
// before it starts (a child process, a Redis of its own, a BASE_URL the app calls back on).
import { createServer, type AddressInfo } from 'node:net'

export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
