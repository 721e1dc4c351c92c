// Listing and showing a provider resource's items: what Gatehouse adds around a provider's
// `list` and `get`. Pages are cut at `limit` after `filter` (evaluated here, in JavaScript, with
// the grammar and semantics the database uses) and carry a signed cursor bound to the query;
// `fields` projects each item; items that break the resource's own schema are never sent.
import type { Caller } from '../kernel/caller.js'
import type { CursorCodec } from '../kernel/cursor.js'
import { queryDigest } from '../kernel/cursor.js'
import { matchesFilter, parseFilter } from '../kernel/filter.js'
import { parseFields, project, type FieldTree } from '../kernel/projection.js'
import type { RouteResult } from '../kernel/machine-route.js'
import { invalid, notFound } from '../kernel/errors.js'
import type { FilterTest, JsonValue, ListPage } from '../providers/provider.js'
import type { CallOrigin, ProviderRegistry, ProviderResourceEntry } from '../providers/provider-registry.js'
import { refuseWhileBounded, type BoundaryLookup } from '../jobs/unbounded-reads.js'

/** Calls to the provider one request may make while looking for items that pass `filter`. */
export const MAX_CALLS_PER_PAGE = 10
const MAX_CURSOR_LENGTH = 2048

export interface ListInput {
  readonly limit?: number
  readonly cursor?: string
  readonly fields?: string
  readonly filter?: string
  /** The resource's own parameters, validated by its schema. */
  readonly params: Readonly<Record<string, unknown>>
}

/** Where a page starts: a provider position, and how many of that provider page's items were already answered. */
interface Resume {
  readonly p?: JsonValue
  readonly s: number
}

export interface ItemsDeps {
  readonly providers: ProviderRegistry
  readonly cursors: CursorCodec
  /** The job runtime's read boundary: provider items are refused while a bounded run is open. */
  readonly jobs: BoundaryLookup
}

const originOf = (caller: Caller, requestId: string): CallOrigin => ({ requestId, caller: { credentialId: caller.credentialId, scopes: caller.scopes } })

export async function listProviderItems(deps: ItemsDeps, entry: ProviderResourceEntry, input: ListInput, caller: Caller, requestId: string): Promise<RouteResult> {
  await refuseWhileBounded(deps.jobs, caller.credentialId, `/plugins/${entry.provider.plugin}/${entry.resource.name}`)
  const { resource } = entry
  const applies = resource.appliesItself ?? {}
  const fields = input.fields !== undefined ? parseFields(input.fields, entry.keys) : undefined
  const filter = input.filter !== undefined ? parseFilter(input.filter, { schema: entry.item, sensitiveKeys: [], sensitiveAllowed: true }) : undefined
  const limit = input.limit ?? 50

  // Key order of the parameters must not change the digest: each is a part of its own.
  const parts: Record<string, unknown> = { resource: entry.scope, filter: input.filter ?? null }
  for (const [k, v] of Object.entries(input.params)) parts[`param.${k}`] = v
  const digest = queryDigest(parts)
  let start: Resume = { s: 0 }
  if (input.cursor !== undefined) {
    const c = deps.cursors.decode<{ q?: unknown; p?: JsonValue; s?: unknown }>(input.cursor)
    if (c.q !== digest) throw invalid('cursor', 'cursor belongs to a different query; repeat the parameters of the first page')
    if (typeof c.s !== 'number' || !Number.isInteger(c.s) || c.s < 0 || c.s > 10_000) throw invalid('cursor', 'malformed cursor')
    start = { p: c.p, s: c.s }
  }

  const keep = (item: unknown) => applies.filter || !filter || matchesFilter(item, filter)
  const origin = originOf(caller, requestId)
  const items: unknown[] = []
  let next: Resume | null = null
  let at = start
  for (let calls = 1; ; calls++) {
    const page: ListPage = await deps.providers.call(entry, origin, (context) => resource.list({
      params: input.params,
      // Enough to fill the page after the items a cursor skips.
      limit: limit - items.length + at.s,
      ...(at.p !== undefined ? { position: at.p } : {}),
      ...(applies.filter && filter ? { filter: filter as readonly FilterTest[] } : {}),
      ...(applies.fields && input.fields !== undefined ? { fields: input.fields.split(',').map((f) => f.trim()).filter(Boolean) } : {}),
    }, context))
    const got = checkPage(page, entry)
    let i = at.s
    for (; i < got.length && items.length < limit; i++) if (keep(got[i])) items.push(got[i])
    const after = page.next ?? undefined
    if (items.length === limit) {
      next = i < got.length ? { ...(at.p !== undefined ? { p: at.p } : {}), s: i } : after !== undefined ? { p: after, s: 0 } : null
      break
    }
    if (after === undefined) break
    at = { p: after, s: 0 }
    // A page may stay short when filtering drops many items; the cursor resumes the search.
    if (calls >= MAX_CALLS_PER_PAGE) {
      next = at
      break
    }
  }
  const nextCursor = next ? encodeCursor(deps.cursors, { q: digest, ...next }, entry) : null
  return {
    data: items.map((item) => render(item, entry, fields)),
    pagination: { hasMore: nextCursor !== null, nextCursor },
    meta: { mode: 'full' },
  }
}

export async function showProviderItem(deps: ItemsDeps, entry: ProviderResourceEntry, id: string, fieldsText: string | undefined, caller: Caller, requestId: string): Promise<RouteResult> {
  await refuseWhileBounded(deps.jobs, caller.credentialId, `/plugins/${entry.provider.plugin}/${entry.resource.name}`)
  const fields = fieldsText !== undefined ? parseFields(fieldsText, entry.keys) : undefined
  const item = await deps.providers.call(entry, originOf(caller, requestId), (context) => entry.resource.get(id, context))
  if (item === undefined || item === null) throw notFound(`No ${entry.resource.name} item of provider ${entry.provider.plugin} has id ${id}`)
  checkItem(item, entry)
  return { data: render(item, entry, fields) }
}

function render(item: unknown, entry: ProviderResourceEntry, fields: FieldTree | undefined): unknown {
  return fields && !entry.resource.appliesItself?.fields ? project(item, fields) : item
}

function checkPage(page: ListPage, entry: ProviderResourceEntry): readonly unknown[] {
  if (typeof page !== 'object' || page === null || !Array.isArray(page.items)) {
    throw new Error(`provider ${entry.provider.plugin}: ${entry.resource.name}.list did not return { items }`)
  }
  for (const item of page.items) checkItem(item, entry)
  return page.items
}

/** An item outside its declared schema is a provider bug: a 500 (logged), never sent. */
function checkItem(item: unknown, entry: ProviderResourceEntry): void {
  // A resource that applies `fields` itself returns projected items: only their shape is known.
  if (entry.resource.appliesItself?.fields) return
  if (!entry.checkItem(item)) {
    const e = entry.checkItem.errors?.[0]
    throw new Error(`provider ${entry.provider.plugin}: a ${entry.resource.name} item does not match its schema: ${e?.instancePath || '(item)'} ${e?.message ?? ''}`)
  }
}

function encodeCursor(cursors: CursorCodec, payload: Record<string, unknown>, entry: ProviderResourceEntry): string {
  const cursor = cursors.encode(payload)
  if (cursor.length > MAX_CURSOR_LENGTH) throw new Error(`provider ${entry.provider.plugin}: ${entry.resource.name}.list returned a next position too large for a cursor`)
  return cursor
}
