// listChanges: a page of the change feed in commit order for a caller. Items carry the
// current document as `snapshot` (null for deletes); only types whose own read scope the
// caller holds appear, and records the caller may not see appear as deletes.
import type { Resource } from '../../resources/index.js'
import type { Caller } from '../../auth/credentials.js'
import { ApiError, invalid } from '../../contract/errors.js'
import { PRUNED_THROUGH_KEY } from '../../store/change-log.js'
import { readChangePage, type FeedFamily } from '../../store/change-page.js'
import { getMeta } from '../../store/meta.js'
import { isoOf } from '../../store/documents.js'
import { queryDigest } from '../cursor.js'
import { parseFields, type FieldTree } from '../projection.js'
import type { JsonResult, ReadContext } from './read-context.js'
import type { ListInput } from './list-records.js'
import { renderDoc, visibility, visibilityConditions } from './visibility.js'

type ChangeCursor = { s: number; t: string[]; q: string; u?: number }

/** Feed types the caller can read now: its scope held and its flag on. */
export function readableChangeTypes(ctx: ReadContext, caller: Caller): string[] {
  return ctx.resources.enabled(ctx.settings).filter((r) => r.changeFeed !== false && caller.scopes.has(r.scope as string)).map((r) => r.changeType)
}

function parseTypes(ctx: ReadContext, text: string): string[] {
  const valid = ctx.resources.changeFeedTypes
  const types = [...new Set(text.split(',').map((t) => t.trim()).filter(Boolean))]
  const unknown = types.filter((t) => !valid.includes(t))
  if (unknown.length > 0) throw invalid('types', `unknown type ${unknown.join(', ')}; valid: ${valid.join(', ')}`)
  return types
}

function parseChangeFilter(ctx: ReadContext, text: string): { resourceType?: string; action?: string } {
  const out: { resourceType?: string; action?: string } = {}
  for (const expr of text.split(',').filter(Boolean)) {
    const [path, value] = expr.split(':')
    if (path === 'action' && ['created', 'updated', 'deleted'].includes(value)) out.action = value
    else if (path === 'resourceType' && ctx.resources.changeFeedTypes.includes(value)) out.resourceType = value
    else throw invalid('filter', `"${expr}" is not supported; use action:created|updated|deleted or resourceType:TYPE`)
  }
  return out
}

export async function listChanges(ctx: ReadContext, input: ListInput, caller: Caller): Promise<JsonResult> {
  const filter = input.filter !== undefined ? parseChangeFilter(ctx, input.filter) : {}
  const digest = queryDigest({ filter: input.filter ?? null })
  let afterSeq = 0
  let types: string[]
  let updatedSince: number | undefined = input.updatedSince !== undefined ? Date.parse(input.updatedSince) : undefined
  if (input.cursor !== undefined) {
    const c = ctx.cursors.decode<ChangeCursor>(input.cursor)
    if (c.q !== digest || !Array.isArray(c.t) || typeof c.s !== 'number') throw invalid('cursor', 'cursor belongs to a different query; repeat the filter of the first page')
    afterSeq = c.s
    types = c.t // a cursor keeps its types
    updatedSince = c.u
    const prunedThrough = Number((await getMeta(ctx.database.db, PRUNED_THROUGH_KEY)) ?? 0)
    if (afterSeq < prunedThrough) {
      throw new ApiError('CURSOR_EXPIRED', 'The cursor points before the change log retention; restart from a checkpoint or a full sync')
    }
  } else {
    types = input.types !== undefined ? parseTypes(ctx, input.types) : [...ctx.resources.changeFeedTypes]
  }
  const readable = new Set(readableChangeTypes(ctx, caller))
  let effective = types.filter((t) => readable.has(t))
  if (filter.resourceType) effective = effective.filter((t) => t === filter.resourceType)

  const resources = effective.map((t) => ctx.resources.byChangeType(t) as Resource)
  const fieldNames = [...new Set(resources.flatMap((r) => visibility(r, caller).allowed))]
  const fields: FieldTree | undefined = input.fields !== undefined ? parseFields(input.fields, fieldNames) : undefined

  const limit: number = input.limit ?? 50
  // One statement: the changes and, for each, the current document if the caller may see it.
  // Records the caller may not see now (entries other than live without
  // entries:read_all_statuses, blocks of such entries) leave its view: they appear as deletes
  // without a snapshot, which also tells a mirror to drop them.
  const families: FeedFamily[] = resources.map((r) => ({ resource: r, withSensitive: visibility(r, caller).withSensitive, visible: visibilityConditions(ctx.resources, r, caller) }))
  const rows = await readChangePage(ctx.database, { afterSeq, updatedSince, limit: limit + 1, action: filter.action }, families)
  const hasMore = rows.length > limit
  const page = hasMore ? rows.slice(0, limit) : rows
  let data = '['
  for (let i = 0; i < page.length; i++) {
    const c = page[i]
    const hidden = c.doc === ''
    const snapshot = c.doc === null || hidden ? 'null' : renderDoc(c.doc, c.sensitive, fields)
    data += `${i > 0 ? ',' : ''}{"resourceType":"${c.resourceType}","resourceId":${c.resourceId},"action":"${hidden ? 'deleted' : c.action}","updatedAt":"${isoOf(c.updatedAt)}","occurredAt":"${isoOf(c.occurredAt)}","snapshot":${snapshot}}`
  }
  data += ']'
  const last = page[page.length - 1]
  // The feed always hands back a position to resume from, also at its end, so a follower
  // can poll for new changes without missing any (see docs/decisions.md).
  const nextCursor = ctx.cursors.encode({ s: last ? last.seq : afterSeq, t: types, q: digest, ...(updatedSince !== undefined ? { u: updatedSince } : {}) } satisfies ChangeCursor)
  return {
    rawData: data,
    pagination: { hasMore, nextCursor },
    meta: { mode: input.cursor !== undefined || updatedSince !== undefined ? 'incremental' : 'full', types: effective },
  }
}
