// Webhook-driven cache refresh: a receiver that verifies each Gatehouse webhook's signature,
// then re-reads the changed record through the API (never trusting the payload alone) and
// updates its cache; deletes evict. Answers 204 when handled, 401 for a bad signature.
// Node 20+, no dependencies. Listens on RECEIVER_PORT (default 8787).
import { createServer } from 'node:http'
import { createHmac, timingSafeEqual } from 'node:crypto'

const base = `${process.env.GATEHOUSE_BASE_URL}/gatehouse/v1`
const headers = { Authorization: `Bearer ${process.env.GATEHOUSE_TOKEN}` }
const secret = process.env.GATEHOUSE_WEBHOOK_SECRET
const paths = { entry: 'entries', product: 'products', order: 'orders' }
const cache = new Map()

function verified(req, body) {
  const timestamp = req.headers['x-gatehouse-webhook-timestamp']
  const given = Buffer.from(String(req.headers['x-gatehouse-webhook-signature'] ?? ''))
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex'))
  const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 300 // refuse replays of old deliveries
  return fresh && given.length === expected.length && timingSafeEqual(given, expected)
}

async function refresh(event) {
  const key = `${event.resourceType}:${event.resourceId}`
  if (event.action === 'deleted') return cache.delete(key)
  const res = await fetch(`${base}/${paths[event.resourceType]}/show?id=${event.resourceId}`, { headers })
  if (res.status === 404) return cache.delete(key) // deleted since the event
  if (!res.ok) throw new Error(`refresh ${key}: ${res.status}`)
  cache.set(key, (await res.json()).data)
}

createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', async () => {
    const body = Buffer.concat(chunks).toString('utf8')
    if (!verified(req, body)) return res.writeHead(401).end()
    const event = JSON.parse(body)
    if (event.isProbe || !paths[event.resourceType]) return res.writeHead(204).end() // probes and others: acknowledge only
    try {
      await refresh(event)
      console.log(`refreshed ${event.resourceType} ${event.resourceId} (${event.action}); cache holds ${cache.size}`)
      res.writeHead(204).end()
    } catch (err) {
      console.error(String(err))
      res.writeHead(503).end() // Gatehouse retries, then keeps it in the DLQ for replay
    }
  })
}).listen(Number(process.env.RECEIVER_PORT ?? 8787), () => console.log('receiver listening'))
