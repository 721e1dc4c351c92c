// An example external provider: stock levels read from a warehouse's HTTP JSON service.
// It uses only Gatehouse's public provider entry, as a provider in its own package would.
//
//   PLUGIN_GATEHOUSE_PROVIDERS=./examples/providers/warehouse-stock.ts
//   WAREHOUSE_STOCK_URL=https://stock.example.com/api   (required)
//   WAREHOUSE_TOKEN=…                                    (optional bearer token)
//   WAREHOUSE_TIMEOUT_MS=2000                            (optional)
//
// The service it expects: GET {url}/stock?limit=N[&after=SKU][&warehouse=W] answers
// { items: [...], next: SKU | null }; GET {url}/stock/{sku} answers one item or 404;
// GET {url}/health answers 2xx while the service works.
import { Type, type Static } from '@sinclair/typebox'
import { defineProvider, defineResource, ProviderInputError, ProviderUnavailableError, type ProviderContext } from 'gatehouse/providers'

const StockLevel = Type.Object({
  sku: Type.String(),
  warehouse: Type.String({ description: 'Warehouse code' }),
  onHand: Type.Integer({ description: 'Units on the shelves' }),
  reserved: Type.Integer({ description: 'Units promised to open orders' }),
  available: Type.Integer({ description: 'onHand minus reserved, never below 0' }),
  updatedAt: Type.String({ format: 'date-time' }),
}, { additionalProperties: false })

const Params = Type.Object({
  warehouse: Type.Optional(Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9-]+$', description: 'Only this warehouse' })),
})

interface Upstream {
  readonly url: string
  readonly token?: string
  readonly timeoutMs: number
}

let upstream: Upstream | undefined

/** The service's record, checked field by field: a changed upstream format is an outage, not a 500. */
function toStockLevel(raw: unknown): Static<typeof StockLevel> {
  const r = raw as Record<string, unknown> | null
  const int = (v: unknown) => typeof v === 'number' && Number.isInteger(v)
  if (!r || typeof r.sku !== 'string' || typeof r.warehouse !== 'string' || !int(r.onHand) || !int(r.reserved) || typeof r.updatedAt !== 'string' || Number.isNaN(Date.parse(r.updatedAt))) {
    throw new ProviderUnavailableError('the warehouse service answered with an unexpected record')
  }
  const onHand = r.onHand as number
  const reserved = r.reserved as number
  return { sku: r.sku, warehouse: r.warehouse, onHand, reserved, available: Math.max(0, onHand - reserved), updatedAt: new Date(r.updatedAt).toISOString() }
}

/**
 * One request to the service, with the timeout and the error mapping: no answer, a 5xx or a
 * 429 mean the service is unavailable (503 to clients, readiness degraded); 401 and 403 mean
 * Gatehouse is misconfigured, also an outage for clients; 404 is "no such item" (null).
 */
async function request(path: string, signal: AbortSignal | undefined): Promise<unknown> {
  if (!upstream) throw new ProviderUnavailableError('the warehouse provider has not started')
  const { url, token, timeoutMs } = upstream
  const timeout = AbortSignal.timeout(timeoutMs)
  let res: Response
  try {
    res = await fetch(url + path, {
      headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    })
  } catch (err) {
    if (timeout.aborted) throw new ProviderUnavailableError(`the warehouse service did not answer within ${timeoutMs} ms`)
    const code = (err as { cause?: { code?: string } }).cause?.code
    throw new ProviderUnavailableError(`the warehouse service cannot be reached${code ? ` (${code})` : ''}`)
  }
  if (res.status === 404) return null
  if (res.status === 400) {
    const body = (await res.json().catch(() => ({}))) as { error?: unknown }
    throw new ProviderInputError('warehouse', typeof body.error === 'string' ? body.error : 'refused by the warehouse service')
  }
  if (res.status === 401 || res.status === 403) throw new ProviderUnavailableError(`the warehouse service refused the credentials (${res.status}); check WAREHOUSE_TOKEN`)
  if (!res.ok) throw new ProviderUnavailableError(`the warehouse service answered ${res.status}`)
  try {
    return await res.json()
  } catch {
    throw new ProviderUnavailableError('the warehouse service answered with something that is not JSON')
  }
}

const stockLevels = defineResource({
  name: 'stock-levels',
  summary: 'Warehouse stock levels',
  description: 'Stock per SKU from the warehouse service, ordered by SKU.',
  item: StockLevel,
  params: Params,
  async list({ params, limit, position }, { signal }: ProviderContext) {
    const query = new URLSearchParams({ limit: String(Math.min(limit, 100)) })
    if (typeof position === 'string') query.set('after', position)
    if (params.warehouse) query.set('warehouse', params.warehouse)
    const body = (await request(`/stock?${query}`, signal)) as { items?: unknown; next?: unknown } | null
    if (!body || !Array.isArray(body.items)) throw new ProviderUnavailableError('the warehouse service answered with an unexpected list')
    return { items: body.items.map(toStockLevel), ...(typeof body.next === 'string' ? { next: body.next } : {}) }
  },
  async get(id, { signal }) {
    const body = await request(`/stock/${encodeURIComponent(id)}`, signal)
    return body === null ? null : toStockLevel(body)
  },
})

export default defineProvider({
  plugin: 'warehouse',
  description: 'Stock levels from the warehouse service',
  resources: [stockLevels],
  start({ env }) {
    const url = env.WAREHOUSE_STOCK_URL?.replace(/\/+$/, '')
    if (!url || !/^https?:\/\//.test(url)) throw new Error('WAREHOUSE_STOCK_URL must be set to the service\'s http(s) address')
    const timeoutMs = Number(env.WAREHOUSE_TIMEOUT_MS ?? 2000)
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new Error('WAREHOUSE_TIMEOUT_MS must be a whole number of milliseconds')
    upstream = { url, token: env.WAREHOUSE_TOKEN || undefined, timeoutMs }
  },
  stop() {
    upstream = undefined
  },
  async available() {
    if ((await request('/health', undefined)) === null) throw new ProviderUnavailableError('the warehouse service has no /health; check WAREHOUSE_STOCK_URL')
  },
})
