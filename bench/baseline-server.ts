// The benchmark's baseline: a bare Fastify route sending a ready payload (an entries page),
// so each Gatehouse row is compared with the same machine's HTTP floor, measured beside it.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const [payloadFile, port] = process.argv.slice(2)
const payload = readFileSync(payloadFile, 'utf8')
const app = Fastify({ logger: false })
app.get('/static', async (_req, reply) => reply.type('application/json; charset=utf-8').send(payload))
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void app.close().then(() => process.exit(0)))
await app.listen({ host: '127.0.0.1', port: Number(port) })
