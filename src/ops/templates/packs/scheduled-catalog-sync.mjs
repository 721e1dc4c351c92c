// Scheduled catalog sync as a governed job: for each due workflow of this template that runs
// as the token, report started (a lease on the occurrence; 409 if another worker has it),
// follow the product change feed from the checkpoint, and report succeeded or failed.
// Run it from cron or a loop; a run only happens when a workflow is due. Node 20+.
import { hostname } from 'node:os'

const base = `${process.env.GATEHOUSE_BASE_URL}/gatehouse/v1`
const headers = { Authorization: `Bearer ${process.env.GATEHOUSE_TOKEN}`, 'Content-Type': 'application/json' }
const workerId = process.env.GATEHOUSE_WORKER_ID ?? `${hostname()}-${process.pid}`

async function call(method, path, body) {
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const json = await res.json()
  if (!res.ok) throw Object.assign(new Error(`${method} ${path}: ${res.status} ${json.error?.code} ${json.error?.message}`), { status: res.status })
  return json
}

const report = (body) => call('POST', '/workflows/run-report', { workerId, ...body })

async function syncProducts() {
  const lag = await call('GET', '/sync-state/lag?resourceType=products')
  let cursor = lag.data.checkpoints[0]?.cursor ?? null
  const kept = new Set()
  const dropped = new Set()
  let changes = 0
  for (;;) {
    const page = await call('GET', `/changes?${cursor ? `cursor=${encodeURIComponent(cursor)}` : 'types=products&limit=100'}`)
    // ...apply each change to your copy here: upsert the snapshot, or drop the record when it is
    // null (deleted, or outside what this credential may read now)...
    for (const c of page.data) { (c.snapshot !== null ? kept : dropped).add(c.resourceId); changes++ }
    cursor = page.pagination.nextCursor
    await call('POST', '/sync-state/checkpoint', { resourceType: 'products', cursor })
    if (!page.pagination.hasMore) break
  }
  return { changes, products: kept.size, dropped: [...dropped].filter((id) => !kept.has(id)).length }
}

const only = process.env.GATEHOUSE_WORKFLOW_ID
const due = (await call('GET', '/workflows?dueOnly=true&templateKey=scheduled-catalog-sync')).data.filter((w) => !only || w.id === only)
if (due.length === 0) console.log('no workflow is due')
for (const workflow of due) {
  let run
  try {
    run = (await report({ workflowId: workflow.id, status: 'started' })).data
  } catch (err) {
    if (err.status !== 409) throw err
    console.log(`workflow ${workflow.name}: taken by another worker`)
    continue
  }
  try {
    const result = await syncProducts()
    const summary = `applied ${result.changes} changes to ${result.products} products, dropped ${result.dropped}`
    const done = (await report({ workflowId: workflow.id, runId: run.id, status: 'succeeded', summary, metadata: result })).data
    console.log(`workflow ${workflow.name}: run ${done.id} ${done.status}: ${summary}`)
  } catch (err) {
    await report({ workflowId: workflow.id, runId: run.id, status: 'failed', summary: String(err.message).slice(0, 2000) })
    throw err
  }
}
