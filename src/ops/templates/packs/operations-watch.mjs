// Operations watch: one look at readiness, open incidents and risky credentials, for a cron
// job or a chat alert. Exits 1 when the service is not ready or a critical incident is open.
// Node 20+, no dependencies.
const base = `${process.env.GATEHOUSE_BASE_URL}/gatehouse/v1`
const headers = { Authorization: `Bearer ${process.env.GATEHOUSE_TOKEN}` }

async function get(path) {
  const res = await fetch(base + path, { headers })
  const json = await res.json()
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${json.error?.code} ${json.error?.message}`)
  return json.data
}

const readiness = await get('/readiness')
const open = await get('/incidents?status=open&limit=200')
const lifecycle = await get('/lifecycle')
console.log(`readiness: ${readiness.verdict}`)
for (const c of readiness.checks.filter((x) => x.status !== 'ok')) console.log(`  ${c.status} ${c.name}: ${c.message}`)
console.log(`open incidents: ${open.length}`)
for (const i of open) console.log(`  ${i.currentSeverity} ${i.category} since ${i.openedAt}: ${i.recommendedAction}`)
const risky = lifecycle.credentials.filter((c) => c.risk === 'high' || c.risk === 'critical')
console.log(`credentials at high or critical risk: ${risky.length}`)
for (const c of risky) console.log(`  ${c.risk} ${c.credentialId} (${c.label}): ${c.recommendedAction}`)
if (readiness.verdict === 'not_ready' || open.some((i) => i.currentSeverity === 'critical')) process.exitCode = 1
