// The benchmark's baseline: a bare Fastify route sending a ready payload (an entries page),
// so each Gatehouse row is compared with the same machine's HTTP floor, measured beside it.
// `/static?bytes=N` sends the page's items repeated (or cut) to N bytes: each row's baseline
// has the size of that row's answers, so a 40 KB feed page is not compared with a 10 KB page.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const [payloadFile, port] = process.argv.slice(2)
const payload = readFileSync(payloadFile, 'utf8')
const sized = new Map<number, string>()

/** The payload at `bytes` bytes: still a JSON document, padded with spaces to the size. */
function ofSize(bytes: number): string {
  const items = (JSON.parse(payload) as { data: unknown[] }).data.map((x) => JSON.stringify(x))
  let body = '{"data":['
  for (let i = 0; body.length + items[i % items.length].length + 2 < bytes; i++) body += (i > 0 ? ',' : '') + items[i % items.length]
  body += ']}'
  return body.padEnd(bytes, ' ')
}

const app = Fastify({ logger: false })
app.get('/static', async (request, reply) => {
  const bytes = Number((request.query as { bytes?: string }).bytes ?? 0)
  let body = payload
  if (Number.isInteger(bytes) && bytes > 0) {
    body = sized.get(bytes) ?? ofSize(bytes)
    sized.set(bytes, body)
  }
  return reply.type('application/json; charset=utf-8').send(body)
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void app.close().then(() => process.exit(0)))
await app.listen({ host: '127.0.0.1', port: Number(port) })
