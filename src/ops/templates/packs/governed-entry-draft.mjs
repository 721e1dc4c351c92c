// Governed entry draft: propose a change to an entry as a named draft through the control
// plane. Simulates first, then asks for approval; once a person (or a second credential)
// approved it, run again with GATEHOUSE_APPROVAL_ID to execute. Never publishes.
// Needs PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL=true on the server. Node 20+, no dependencies.
import { randomUUID } from 'node:crypto'

const base = `${process.env.GATEHOUSE_BASE_URL}/gatehouse/v1`
const headers = { Authorization: `Bearer ${process.env.GATEHOUSE_TOKEN}`, 'Content-Type': 'application/json' }

async function call(method, path, body, extra = {}) {
  const res = await fetch(base + path, { method, headers: { ...headers, ...extra }, body: body === undefined ? undefined : JSON.stringify(body) })
  const json = await res.json()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json.error?.code} ${json.error?.message}`)
  return json.data
}

const slug = process.env.GATEHOUSE_ENTRY_SLUG
const entry = await call('GET', `/entries/show?slug=${encodeURIComponent(slug)}&fields=id,title`)
const action = {
  actionType: 'entry.updateDraft',
  payload: { entryId: entry.id, name: 'assistant-suggestion', title: process.env.GATEHOUSE_DRAFT_TITLE ?? `${entry.title} (revised)` },
}

if (process.env.GATEHOUSE_APPROVAL_ID) {
  const execution = await call('POST', '/control/actions/execute', { ...action, approvalId: process.env.GATEHOUSE_APPROVAL_ID }, { 'Idempotency-Key': `draft-${process.env.GATEHOUSE_APPROVAL_ID}` })
  console.log(`execution ${execution.id}: ${execution.status}`)
} else {
  const simulation = await call('POST', '/control/policy-simulate', action)
  console.log(`simulation: ${JSON.stringify(simulation)}`)
  const approval = await call('POST', '/control/approvals/request', {
    ...action,
    metadata: { source: 'starter-pack', agentId: process.env.GATEHOUSE_AGENT_ID ?? 'draft-assistant', traceId: randomUUID() },
  })
  console.log(`approval ${approval.id} is ${approval.status}; once approved, run again with GATEHOUSE_APPROVAL_ID=${approval.id}`)
}
