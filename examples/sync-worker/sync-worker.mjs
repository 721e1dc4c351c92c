// A sync worker (docs/sync.md): keeps a local copy of some record types current through the
// machine API, and may write back through the admin API without reading its own writes again.
//
//   copy       GET /changes/position first, then every list page (the copy)
//   hand-over  follow /changes?after=<that position>: changes made during the copy come again
//   follow     apply each change (a delete or a hidden record drops it, anything else upserts
//              its snapshot), save the copy, then checkpoint the page's nextCursor
//   resume     a restart reads the checkpoint from /sync-state/lag and goes on from there
//   reset      a 410 CURSOR_EXPIRED (checkpoint older than retention) starts over with a copy
//
// The copy lives in SYNC_STATE_FILE (JSON, replaced atomically) and is saved before each
// checkpoint, so a kill at any point at most re-applies a page (applying is idempotent).
// Node 20+, no dependencies. Environment:
//   GATEHOUSE_BASE_URL, GATEHOUSE_TOKEN   the machine API and this worker's credential
//   SYNC_TYPES                            feed types to copy, e.g. products,entries
//   SYNC_STATE_FILE                       where the copy is kept
//   SYNC_EXCLUDE_OWN=true                 leave out this credential's own writes (two-way sync)
//   SYNC_FOLLOW_MS                        poll every N ms for ever; unset: stop once caught up
import { readFileSync, renameSync, writeFileSync } from 'node:fs'

/** List paths and the query that lists what the feed shows this credential, per feed type. */
export const COPY_LISTS = {
  products: '/products?status=all',
  variants: '/variants?status=all',
  // Live entries only: the feed shows other statuses as deletes unless the credential holds
  // entries:read_all_statuses (then copy /entries?status=all).
  entries: '/entries',
  contentblocks: '/content-blocks',
  tags: '/tags',
  categories: '/categories',
}

export function createClient(baseUrl, token) {
  return async function call(method, path, body) {
    const res = await fetch(`${baseUrl}/gatehouse/v1${path}`, {
      method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const json = await res.json()
    if (!res.ok) throw Object.assign(new Error(`${method} ${path}: ${res.status} ${json.error?.code} ${json.error?.message}`), { status: res.status })
    return json
  }
}

const key = (type, id) => `${type}:${id}`

/** Applies one feed item to the copy: tombstones (deletes, records now hidden) drop, others upsert. */
export function applyChange(copy, item) {
  if (item.action === 'deleted' || item.snapshot === null) delete copy[key(item.resourceType, item.resourceId)]
  else copy[key(item.resourceType, item.resourceId)] = item.snapshot
}

function load(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return {}
  }
}

function save(file, copy) {
  writeFileSync(file + '.tmp', JSON.stringify(copy))
  renameSync(file + '.tmp', file)
}

/** The full copy; returns the position to follow from (taken before the first page). */
async function fullCopy(call, types, copy) {
  const { position } = (await call('GET', '/changes/position')).data
  for (const k of Object.keys(copy)) delete copy[k]
  for (const type of types) {
    const list = COPY_LISTS[type]
    let page = await call('GET', `${list}${list.includes('?') ? '&' : '?'}limit=200`)
    for (;;) {
      for (const record of page.data) copy[key(type, record.id)] = record
      if (!page.pagination.hasMore) break
      page = await call('GET', `${list}${list.includes('?') ? '&' : '?'}limit=200&cursor=${encodeURIComponent(page.pagination.nextCursor)}`)
    }
  }
  return position
}

/** Machine API detail paths, per feed type (to read back what the worker wrote). */
const SHOW_PATHS = { products: '/products/show', variants: '/variants/show', entries: '/entries/show', contentblocks: '/content-blocks/show', tags: '/tags/show', categories: '/categories/show' }
const ADMIN_PATHS = { products: 'products', variants: 'variants', entries: 'entries', contentblocks: 'content-blocks', tags: 'tags', categories: 'categories' }

/**
 * Two-way sync: writes a change back through the admin API, naming this worker's credential
 * in X-Gatehouse-Origin-Credential so the feed marks it as its own (and excludeOwn leaves it
 * out), then reads the record back through the machine API, as this credential sees it, into
 * the copy: a write that hides the record (a status it may not see) drops it.
 * The record is noted as pending first and cleared once the copy holds it: the feed will not
 * bring this worker's own write back, so a worker killed between the write and saving its copy
 * reads the pending records again when it starts (refreshPending).
 */
export async function writeBack({ baseUrl, adminToken, credentialId, call, copy, stateFile }, type, id, patch) {
  const pending = loadPending(stateFile)
  savePending(stateFile, [...new Set([...pending, key(type, id)])])
  const res = await fetch(`${baseUrl}/gatehouse/admin/v1/${ADMIN_PATHS[type]}/${id}`, {
    method: 'PATCH', body: JSON.stringify(patch),
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json', 'X-Gatehouse-Origin-Credential': credentialId },
  })
  if (res.status === 404) return false
  if (!res.ok) throw new Error(`PATCH ${type}/${id}: ${res.status} ${await res.text()}`)
  try {
    const record = (await call('GET', `${SHOW_PATHS[type]}?id=${id}`)).data
    copy[key(type, id)] = record
  } catch (err) {
    if (err.status !== 404) throw err
    delete copy[key(type, id)]
  }
  save(stateFile, copy)
  savePending(stateFile, loadPending(stateFile).filter((k) => k !== key(type, id)))
  return true
}

const pendingFile = (stateFile) => `${stateFile}.pending`
const loadPending = (stateFile) => { const p = load(pendingFile(stateFile)); return Array.isArray(p) ? p : [] }
const savePending = (stateFile, keys) => save(pendingFile(stateFile), keys)

/** Reads again every record a write-back may have changed without the copy knowing (see writeBack). */
async function refreshPending(call, copy, stateFile) {
  const pending = loadPending(stateFile)
  if (pending.length === 0) return
  for (const k of pending) {
    const [type, id] = k.split(':')
    try {
      copy[k] = (await call('GET', `${SHOW_PATHS[type]}?id=${id}`)).data
    } catch (err) {
      if (err.status !== 404) throw err
      delete copy[k]
    }
  }
  save(stateFile, copy)
  savePending(stateFile, [])
}

export async function runWorker({ baseUrl, token, types, stateFile, excludeOwn = false, followMs, afterPage }) {
  const call = createClient(baseUrl, token)
  const checkpointType = types[0]
  const own = excludeOwn ? '&excludeOwn=true' : ''
  const copy = load(stateFile)
  await refreshPending(call, copy, stateFile)
  const lag = await call('GET', `/sync-state/lag?resourceType=${checkpointType}`)
  let cursor = lag.data.checkpoints[0]?.cursor ?? null
  let query
  if (cursor === null) {
    const position = await fullCopy(call, types, copy)
    save(stateFile, copy)
    query = `types=${types.join(',')}&after=${position}&limit=200${own}`
  }
  let applied = 0
  for (;;) {
    let page
    try {
      page = await call('GET', `/changes?${cursor !== null ? `cursor=${encodeURIComponent(cursor)}&limit=200${own}` : query}`)
    } catch (err) {
      if (err.status !== 410) throw err
      // Past retention: the feed no longer holds what we missed. Copy again (docs/sync.md).
      const position = await fullCopy(call, types, copy)
      save(stateFile, copy)
      cursor = null
      query = `types=${types.join(',')}&after=${position}&limit=200${own}`
      continue
    }
    for (const item of page.data) applyChange(copy, item)
    applied += page.data.length
    // The copy first, then the checkpoint: a kill in between re-applies this page, no more.
    save(stateFile, copy)
    cursor = page.pagination.nextCursor
    await call('POST', '/sync-state/checkpoint', { resourceType: checkpointType, cursor, metadata: { records: Object.keys(copy).length } })
    // A two-way sync writes back between pages (see writeBack); true asks for another page.
    const more = afterPage ? await afterPage(copy, call, page.data) : false
    if (page.pagination.hasMore || more === true) continue
    if (followMs === undefined) break
    await new Promise((resolve) => setTimeout(resolve, followMs))
  }
  return { records: Object.keys(copy).length, applied }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runWorker({
    baseUrl: process.env.GATEHOUSE_BASE_URL,
    token: process.env.GATEHOUSE_TOKEN,
    types: (process.env.SYNC_TYPES ?? 'products').split(','),
    stateFile: process.env.SYNC_STATE_FILE ?? './sync-copy.json',
    excludeOwn: process.env.SYNC_EXCLUDE_OWN === 'true',
    followMs: process.env.SYNC_FOLLOW_MS === undefined ? undefined : Number(process.env.SYNC_FOLLOW_MS),
  })
  console.log(`copy holds ${result.records} records; applied ${result.applied} changes`)
}
