// Support context lookup: everything a support agent needs about one order in three reads:
// the order, the variants it contains, and help articles matching the first product.
// Set GATEHOUSE_ORDER_NUMBER, or the first order listed is used. Node 20+, no dependencies.
const base = `${process.env.GATEHOUSE_BASE_URL}/gatehouse/v1`
const headers = { Authorization: `Bearer ${process.env.GATEHOUSE_TOKEN}` }

async function get(path) {
  const res = await fetch(base + path, { headers })
  const json = await res.json()
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${json.error?.code} ${json.error?.message}`)
  return json.data
}

let number = process.env.GATEHOUSE_ORDER_NUMBER
if (!number) {
  const [first] = await get('/orders?limit=1')
  if (!first) throw new Error('no orders yet')
  number = first.number
}
const order = await get(`/orders/show?number=${encodeURIComponent(number)}`)
const skus = [...new Set(order.lineItems.map((l) => l.sku).filter(Boolean))]
const variants = []
for (const sku of skus) variants.push(...(await get(`/variants?status=all&sku=${encodeURIComponent(sku)}`)))
const term = variants[0]?.title ?? order.lineItems[0]?.description ?? ''
const articles = term ? await get(`/entries?q=${encodeURIComponent(term)}&limit=5&fields=id,title,url`) : []

console.log(JSON.stringify({
  order: { number: order.number, reference: order.reference, status: order.status, totalPrice: order.totalPrice, currency: order.currency },
  items: order.lineItems.map((l) => ({ sku: l.sku, qty: l.qty, inStock: variants.find((v) => v.sku === l.sku)?.isAvailable ?? null })),
  articles: articles.map((a) => a.title),
}))
