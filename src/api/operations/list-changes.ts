// listChanges: a page of the change feed in commit order for a caller. Items carry the
// current document as `snapshot` (null for deletes); only types whose own read scope the
// caller holds appear, and records the caller may not see appear as deletes.
import type { Resource } from '../../resources/index.js'
import type { Caller } from '../../auth/credentials.js'
import { ApiError, invalid } from '../../contract/errors.js'
import { PRUNED_THROUGH_KEY, readChanges, type ChangeExpressionBuilder } from '../../store/change-log.js'
import { getMeta } from '../../store/meta.js'
import { isoOf } from '../../store/documents.js'
import { queryDigest } from '../cursor.js'
import { parseFields, type FieldTree } from '../projection.js'
import type { JsonResult, ReadContext } from './read-context.js'
import type { ListInput } from './list-records.js'
import { boundaryConditions, boundaryIds, renderRow, visibility, visibilityConditions } from './visibility.js'

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

  // While a run of a bounded workflow is open, only changes of records inside its boundary (as
  // they are now) are in the feed; deletes only of ids the boundary names, since a deleted
  // record can no longer be placed.
  const boundary = await ctx.jobs.readBoundary(caller.credentialId)
  const restrict = boundary === null ? undefined : (eb: ChangeExpressionBuilder) => eb.or(resources.map((r) => {
    const named = boundaryIds(r, boundary)
    return eb.and([
      eb('resource_type', '=', r.changeType),
      eb.or([
        ctx.reader.idsMeetingExpression(eb, 'resource_id', r, boundaryConditions(ctx.resources, r, boundary)),
        ...(named.length > 0 ? [eb.and([eb('action', '=', 'deleted'), eb('resource_id', 'in', named)])] : []),
      ]),
    ])
  }))

  const limit: number = input.limit ?? 50
  const rows = effective.length === 0 ? [] : await readChanges(ctx.database.db, { afterSeq, types: effective, updatedSince, limit: limit + 1, action: filter.action, restrict })
  const hasMore = rows.length > limit
  const page = hasMore ? rows.slice(0, limit) : rows

  // Snapshots: one query per type on the page. Records the caller may not see now (entries
  // other than live without entries:read_all_statuses, blocks of such entries) leave its view:
  // they appear as deletes without a snapshot, which also tells a mirror to drop them.
  const snapshots = new Map<string, string>()
  const hidden = new Set<string>()
  for (const t of new Set(page.filter((c) => c.action !== 'deleted').map((c) => c.resourceType))) {
    const r = ctx.resources.byChangeType(t) as Resource
    const ids = [...new Set(page.filter((c) => c.resourceType === t && c.action !== 'deleted').map((c) => c.resourceId))]
    const docs = await ctx.reader.docsByIds(r, ids, visibility(r, caller).withSensitive)
    const restrictions = visibilityConditions(ctx.resources, r, caller)
    const visible = restrictions.length > 0 ? await ctx.reader.idsMeeting(r, [...docs.keys()], restrictions) : undefined
    for (const [id, row] of docs) {
      if (visible && !visible.has(id)) hidden.add(`${t}:${id}`)
      else snapshots.set(`${t}:${id}`, renderRow(row, fields))
    }
  }
  const items = page.map((c) => {
    const key = `${c.resourceType}:${c.resourceId}`
    const action = hidden.has(key) ? 'deleted' : c.action
    const snapshot = action === 'deleted' ? 'null' : (snapshots.get(key) ?? 'null')
    return `{"resourceType":${JSON.stringify(c.resourceType)},"resourceId":${c.resourceId},"action":"${action}","updatedAt":"${isoOf(c.updatedAt)}","occurredAt":"${isoOf(c.occurredAt)}","snapshot":${snapshot}}`
  })
  const last = page[page.length - 1]
  // The feed always hands back a position to resume from, also at its end, so a follower
  // can poll for new changes without missing any (see docs/decisions.md).
  const nextCursor = ctx.cursors.encode({ s: last ? last.seq : afterSeq, t: types, q: digest, ...(updatedSince !== undefined ? { u: updatedSince } : {}) } satisfies ChangeCursor)
  return {
    rawData: '[' + items.join(',') + ']',
    pagination: { hasMore, nextCursor },
    meta: { mode: input.cursor !== undefined || updatedSince !== undefined ? 'incremental' : 'full', types: effective },
  }
}
