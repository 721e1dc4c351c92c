// A server process for the benchmark: either Gatehouse on a seeded database, or the
// baseline — a bare Fastify route sending a ready payload of the same size. Prints
// "listening <port>" once ready.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'
import { pino } from 'pino'
import { buildApp } from '../src/app.js'
import { loadSettings } from '../src/settings.js'

const [mode, arg] = process.argv.slice(2)
// Exit on a signal through process.exit, so `node --cpu-prof` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))

if (mode === 'baseline') {
  const payload = readFileSync(arg, 'utf8')
  const app = Fastify({ logger: false })
  app.get('/static', async (_req, reply) => reply.type('application/json; charset=utf-8').send(payload))
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  console.log(`listening ${typeof address === 'object' && address ? address.port : 0}`)
} else {
  const settings = loadSettings({
    PLUGIN_GATEHOUSE_DATABASE_URL: arg,
    PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '0',
    PLUGIN_GATEHOUSE_API_TOKEN: 'bench-token',
    PLUGIN_GATEHOUSE_LOG_LEVEL: 'warn',
    PLUGIN_GATEHOUSE_PORT: '0',
  })
  const built = await buildApp({ settings, logger: pino({ level: 'warn' }) })
  await built.app.listen({ host: '127.0.0.1', port: 0 })
  const address = built.app.server.address()
  console.log(`listening ${typeof address === 'object' && address ? address.port : 0}`)
}
