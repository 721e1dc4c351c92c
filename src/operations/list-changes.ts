// listChanges: a page of the change feed in commit order for a caller. Items carry the
// current document as `snapshot` (null for deletes); only types whose own read scope the
// caller holds appear, and records the caller may not see appear as deletes.
import type { Resource } from '../resources/index.js'
import type { Caller } from '../kernel/caller.js'
import { invalid, missingScope } from '../kernel/errors.js'
import { readChangePage, readRenderedChangePage, type ChangePageRow, type FeedFamily, type FeedPageQuery } from '../store/change-page.js'
import { ORIGIN_KINDS, originView } from '../store/change-origin.js'
import { readFeedBounds } from '../store/feed-position.js'
import { PRUNED_THROUGH_KEY } from '../store/change-log.js'
import { readMeta } from '../store/meta.js'
import { parseBoolean } from '../kernel/booleans.js'
import { positionExpired } from './feed-position.js'
import { parseChangeFilter, snapshotConditions, type ChangeFilter } from './change-filter.js'
import { isoOf } from '../store/documents.js'
import { InputProblems } from '../kernel/input-problems.js'
import { queryDigest } from '../kernel/cursor.js'
import { parseFields, type FieldTree } from '../kernel/projection.js'
import type { ReadContext } from './read-context.js'
import { jsonItems, type JsonResult } from '../kernel/json-result.js'
import type { ListInput } from './list-records.js'
import { boundaryConditions, renderDoc, visibility, visibilityConditions } from './visibility.js'

/** `x`: the types were asked for by name, so each needs its read scope on every page. */
type ChangeCursor = { s: number; t: string[]; q: string; u?: number; x?: 1 }

/** Feed types served now: a family behind a flag only while the flag is on. */
export function servedChangeTypes(ctx: Pick<ReadContext, 'resources' | 'settings'>): string[] {
  return ctx.resources.enabled(ctx.settings).filter((r) => r.changeFeed !== false).map((r) => r.changeType)
}

/** Feed types the caller can read now: its scope held and its flag on. */
export function readableChangeTypes(ctx: ReadContext, caller: Caller): string[] {
  return ctx.resources.enabled(ctx.settings).filter((r) => r.changeFeed !== false && caller.scopes.has(r.scope as string)).map((r) => r.changeType)
}

function parseTypes(ctx: ReadContext, text: string): string[] {
  const valid = servedChangeTypes(ctx)
  const types = [...new Set(text.split(',').map((t) => t.trim()).filter(Boolean))]
  const unknown = types.filter((t) => !valid.includes(t))
  if (unknown.length > 0) throw invalid('types', `unknown type ${unknown.join(', ')}; must be one of: ${valid.join(', ')}`)
  // Blank (`types=,`): a cursor keeping no type would answer empty pages for ever.
  if (types.length === 0) throw invalid('types', `names no type; must be one or more of: ${valid.join(', ')}`)
  return types
}

/**
 * Types asked for by name must each be readable: answering an empty page instead would tell
 * a sync worker that nothing ever changes (403 naming the first scope missing).
 */
function requireTypeScopes(ctx: ReadContext, types: readonly string[], caller: Caller): void {
  for (const t of types) {
    const scope = ctx.resources.byChangeType(t)?.scope
    if (scope !== undefined && !caller.scopes.has(scope)) throw missingScope(scope)
  }
}

const sameTypes = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((t) => b.includes(t))

export async function listChanges(ctx: ReadContext, input: ListInput, caller: Caller, problems?: InputProblems): Promise<JsonResult> {
  return changePage(ctx, input, caller, ctx.database.adapter.rendersChangePages, problems)
}

/**
 * listChanges, its items written by the database when `inDatabase` allows it (no `fields`
 * projection: that needs the parsed document) or from the page's rows here. The tests read
 * the same pages both ways and compare the text. `problems`: the input's problems found so far
 * (the machine API's schema's); the checks here add theirs and one 400 names them all.
 */
export async function changePage(ctx: ReadContext, input: ListInput, caller: Caller, inDatabase: boolean, problems = new InputProblems()): Promise<JsonResult> {
  // Each parameter on its own first; then what can be told only of several valid ones.
  const filter: ChangeFilter = (input.filter !== undefined ? problems.attempt(() => parseChangeFilter(input.filter, servedChangeTypes(ctx))) : undefined) ?? {}
  const origins = input.origin !== undefined ? problems.attempt(() => parseOrigins(input.origin)) : undefined
  const excludeOwn = input.excludeOwn !== undefined && parseBoolean(input.excludeOwn) === true
  if (input.cursor !== undefined && input.after !== undefined) problems.add('after', 'give either cursor or after, not both')
  const cursor = input.cursor !== undefined ? problems.attempt(() => ctx.cursors.decode<ChangeCursor>(input.cursor)) : undefined
  const asked = input.types !== undefined ? problems.attempt(() => parseTypes(ctx, input.types)) : undefined
  // origin and excludeOwn are not part of the cursor's query: they pick changes by position,
  // so a follower may switch them between pages (a sync turning two-way keeps its checkpoint).
  const digest = queryDigest({ filter: input.filter ?? null })
  let afterSeq = 0
  let types: string[] = asked ?? [...ctx.resources.changeFeedTypes]
  let named = input.types !== undefined
  let updatedSince: number | undefined = input.updatedSince !== undefined ? Date.parse(input.updatedSince) : undefined
  if (cursor !== undefined && !problems.has('filter')) {
    if (cursor.q !== digest || !Array.isArray(cursor.t) || typeof cursor.s !== 'number') problems.add('cursor', 'cursor belongs to a different query; repeat the filter of the first page')
    // A cursor keeps its types; `types` may repeat them, not change them (as on lists).
    else if (asked !== undefined && !sameTypes(asked, cursor.t)) problems.add('types', `the cursor belongs to types ${cursor.t.join(',')}; repeat them or leave types out`)
    else {
      afterSeq = cursor.s
      types = cursor.t
      named = cursor.x === 1
      updatedSince = cursor.u
    }
  }
  const readable = new Set(readableChangeTypes(ctx, caller))
  let effective = types.filter((t) => readable.has(t))
  if (filter.resourceType) effective = effective.filter((t) => t === filter.resourceType)
  const resources = effective.map((t) => ctx.resources.byChangeType(t) as Resource)
  const typesKnown = !problems.has('filter') && !problems.has('types') && !problems.has('cursor')
  // The scope of each type asked for by name comes before the input's problems (DESIGN §4).
  if (named && typesKnown) requireTypeScopes(ctx, types, caller)
  // The fields a page may show depend on its types: judged once they are known.
  const fields: FieldTree | undefined = input.fields !== undefined && typesKnown ? problems.attempt(() => feedFields(input.fields, resources, caller)) : undefined
  // So do a snapshot filter's paths, which must exist in every type of the page.
  const snapshot = filter.snapshot
  const snapshotTests = snapshot !== undefined && typesKnown
    ? problems.attempt(() => resources.map((r) => snapshotConditions(r, snapshot, visibility(r, caller).withSensitive)))
    : undefined
  problems.throwIfAny()

  if (input.cursor === undefined && input.after !== undefined) {
    // A position taken from GET /changes/position, a webhook or an item: the changes after it.
    afterSeq = Number(input.after)
    const bounds = await readFeedBounds(ctx.database.db)
    if (afterSeq < bounds.oldest) throw positionExpired('after', afterSeq, bounds.oldest, ctx.settings.changesRetentionDays)
    if (afterSeq > bounds.newest) throw invalid('after', `position ${afterSeq} is past the newest position ${bounds.newest}`)
  }
  // A first page (no cursor, no `after`) starts at 0; after pruning, the position it hands
  // back must still be kept (below), or its cursor would answer 410 on the next page.
  const fresh = input.cursor === undefined && input.after === undefined

  // While a run of a bounded workflow is open, a record outside its boundary (as it is now) is
  // one the caller may not see: its changes come as deletes without a snapshot, so a mirror
  // drops a record that left the boundary instead of keeping it for ever.
  const boundary = await ctx.jobs.readBoundary(caller.credentialId)
  const limit: number = input.limit ?? 50
  // One statement: the changes and, for each, the current document if the caller may see it.
  // Records the caller may not see now (entries other than live without
  // entries:read_all_statuses, blocks of such entries) leave its view: they appear as deletes
  // without a snapshot, which also tells a mirror to drop them.
  const families: FeedFamily[] = resources.map((r, i) => ({
    resource: r, withSensitive: visibility(r, caller).withSensitive,
    visible: [...visibilityConditions(ctx.resources, r, caller), ...(boundary === null ? [] : boundaryConditions(ctx.resources, r, boundary))],
    ...(snapshotTests !== undefined ? { filter: snapshotTests[i] } : {}),
  }))
  // Conditions that may leave out most of the log (origins, the caller's own writes, a filter on
  // the snapshot) read a
  // bounded range of positions: a page may then be short, and its cursor moves to the end of
  // the range read, never past the newest position (read first, so every change up to it is
  // committed: change-log.ts).
  const scanned = origins !== undefined || excludeOwn || snapshot !== undefined ? await readFeedBounds(ctx.database.db) : undefined
  // A bounded scan from 0 would read only positions pruning removed.
  if (fresh && scanned) afterSeq = Math.max(afterSeq, scanned.oldest)
  const upTo = scanned ? Math.min(afterSeq + FILTERED_SCAN_POSITIONS, scanned.newest) : undefined
  const q: FeedPageQuery = {
    afterSeq, updatedSince, limit: limit + 1, action: filter.action, viewer: caller.credentialId,
    ...(origins ? { origins } : {}), ...(excludeOwn ? { excludeCredential: caller.credentialId } : {}), ...(upTo !== undefined ? { upTo } : {}),
  }
  const rendered = inDatabase && fields === undefined ? await readRenderedChangePage(ctx.database, q, families, limit) : undefined
  // The page's items: one JSON text the database wrote (PostgreSQL), or each item's.
  let data: string | string[]
  let hasMore: boolean
  let lastSeq: number | null
  // A cursor from before pruning would skip what was pruned: 410. The rendered page read the
  // pruned position in its own statement; the other path asks for it.
  if (input.cursor !== undefined) requireKept(ctx, afterSeq, rendered?.prunedThrough ?? await prunedThrough(ctx))
  if (rendered) {
    data = '[' + rendered.items + ']'
    hasMore = rendered.count > limit
    lastSeq = rendered.lastSeq
  } else {
    const rows = await readChangePage(ctx.database, q, families)
    hasMore = rows.length > limit
    const page = hasMore ? rows.slice(0, limit) : rows
    data = changeItems(page, fields, caller.credentialId)
    lastSeq = page.length > 0 ? page[page.length - 1].seq : null
  }
  if (scanned && upTo !== undefined && !hasMore) {
    // The whole range was read: resume after it, and say whether the log goes further.
    lastSeq = Math.max(upTo, afterSeq)
    hasMore = scanned.newest > lastSeq
  }
  // The feed always hands back a position to resume from, also at its end, so a follower
  // can poll for new changes without missing any (see docs/decisions.md).
  const position = lastSeq ?? (fresh ? Math.max(afterSeq, rendered?.prunedThrough ?? await prunedThrough(ctx)) : afterSeq)
  const nextCursor = ctx.cursors.encode({
    s: position, t: types, q: digest, ...(updatedSince !== undefined ? { u: updatedSince } : {}), ...(named ? { x: 1 } : {}),
  } satisfies ChangeCursor)
  const rest = {
    pagination: { hasMore, nextCursor },
    meta: { mode: input.cursor !== undefined || input.after !== undefined || updatedSince !== undefined ? 'incremental' : 'full', types: effective, position },
  }
  return typeof data === 'string' ? { rawData: data, ...rest } : jsonItems(data, rest)
}

/**
 * `fields` over the page's types: a field any of them shows the caller; one sensitive in a type
 * and readable in none names the scope it needs, as on lists.
 */
function feedFields(text: string, resources: readonly Resource[], caller: Caller): FieldTree {
  const names = [...new Set(resources.flatMap((r) => visibility(r, caller).allowed))]
  const denied = new Map(resources.flatMap((r) => [...visibility(r, caller).denied]).filter(([key]) => !names.includes(key)))
  return parseFields(text, names, denied)
}

/** Positions a page with origin conditions reads at most (see changePage). */
export const FILTERED_SCAN_POSITIONS = 2000

function parseOrigins(text: string): string[] {
  const kinds = [...new Set(String(text).split(',').map((k) => k.trim()).filter(Boolean))]
  const unknown = kinds.filter((k) => !(ORIGIN_KINDS as readonly string[]).includes(k))
  if (kinds.length === 0 || unknown.length > 0) throw invalid('origin', `unknown origin ${unknown.join(', ') || '(empty)'}; must be one of: ${ORIGIN_KINDS.join(', ')}`)
  return kinds.sort()
}

/** 410 when pruning removed changes after a cursor's `position` (a follower there would miss them). */
function requireKept(ctx: ReadContext, position: number, oldest: number): void {
  if (position < oldest) throw positionExpired('cursor', position, oldest, ctx.settings.changesRetentionDays)
}

const prunedThrough = async (ctx: ReadContext) => Number((await readMeta(ctx.database, PRUNED_THROUGH_KEY)) ?? 0)

/** The feed's items for `rows`, each as JSON text (what the database writes on PostgreSQL). */
function changeItems(rows: readonly ChangePageRow[], fields: FieldTree | undefined, viewer: string | undefined): string[] {
  return rows.map((c) => {
    const hidden = c.doc === ''
    const snapshot = c.doc === null || hidden ? 'null' : renderDoc(c.doc, c.sensitive, fields)
    const origin = JSON.stringify(originView(c.originKind, c.originCredential, c.originRef, viewer))
    return `{"position":${c.seq},"resourceType":"${c.resourceType}","resourceId":${c.resourceId},"action":"${hidden ? 'deleted' : c.action}","updatedAt":"${isoOf(c.updatedAt)}","occurredAt":"${isoOf(c.occurredAt)}","origin":${origin},"snapshot":${snapshot}}`
  })
}
