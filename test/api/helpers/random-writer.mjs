// A writer process for the sync property test: random creates, updates, deletes, status and
// owner changes through the admin API, from its own seeded random sequence. Failures a
// concurrent writer causes (the record is gone, an entry still owns blocks) are expected and
// counted, not errors. Prints one JSON line: {"ok":N,"refused":M}. Arguments: base URL,
// admin token, seed, operations, pause between operations (ms).
const [baseUrl, adminToken, seedText, opsText, pauseText = '0'] = process.argv.slice(2)
let seed = Number(seedText) >>> 0
const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32)
const pick = (list) => list[Math.floor(random() * list.length)]

async function admin(method, path, body) {
  const res = await fetch(`${baseUrl}/gatehouse/admin/v1${path}`, {
    method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: { Authorization: `Bearer ${adminToken}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
  })
  const text = await res.text()
  if (res.status >= 500) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return { status: res.status, json: text ? JSON.parse(text) : null }
}

async function ids(path) {
  const res = await admin('GET', `${path}?limit=200${path === '/content-blocks' ? '' : '&status=all'}`)
  return (res.json?.data ?? []).map((r) => r.id)
}

let ok = 0, refused = 0, n = 0
const tag = `w${seedText}`
const ops = [
  async () => admin('POST', '/products', { type: 'mug', title: `Mug ${tag}-${n}`, slug: `p-${tag}-${n}`, status: pick(['live', 'pending', 'disabled']) }),
  async () => admin('PATCH', `/products/${pick(await ids('/products'))}`, { title: `Renamed ${tag}-${n}` }),
  async () => admin('PATCH', `/products/${pick(await ids('/products'))}`, { status: pick(['live', 'pending', 'disabled', 'expired']) }),
  async () => admin('DELETE', `/products/${pick(await ids('/products'))}`),
  async () => admin('POST', '/entries', { section: 'news', type: 'article', title: `Entry ${tag}-${n}`, slug: `e-${tag}-${n}`, status: pick(['live', 'pending']) }),
  async () => admin('PATCH', `/entries/${pick(await ids('/entries'))}`, { status: pick(['live', 'pending', 'disabled']) }),
  async () => admin('PATCH', `/entries/${pick(await ids('/entries'))}`, { title: `Retitled ${tag}-${n}` }),
  async () => admin('DELETE', `/entries/${pick(await ids('/entries'))}`),
  async () => admin('POST', '/content-blocks', { ownerId: pick(await ids('/entries')), fieldId: 1, type: 'text', sortOrder: n % 5, fields: { text: `b ${n}` } }),
  async () => admin('PATCH', `/content-blocks/${pick(await ids('/content-blocks'))}`, { ownerId: pick(await ids('/entries')) }),
  async () => admin('DELETE', `/content-blocks/${pick(await ids('/content-blocks'))}`),
]
for (n = 0; n < Number(opsText); n++) {
  const res = await pick(ops)()
  if (res.status < 300) ok++
  else refused++
  // A pause between writes, so the worker's restarts fall among them.
  await new Promise((resolve) => setTimeout(resolve, Number(pauseText)))
}
console.log(JSON.stringify({ ok, refused }))
