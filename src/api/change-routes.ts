// GET /changes: the change feed in commit order. Items carry the current document as
// `snapshot` (null for deletes); only types whose own read scope the caller holds appear.
import { Type } from '@sinclair/typebox'
import { ApiError, invalid } from '../contract/errors.js'
import { changeFeedTypes, resourceByChangeType } from '../resources/index.js'
import type { Resource } from '../resources/declare.js'
import { PRUNED_THROUGH_KEY, readChanges } from '../store/change-log.js'

export { PRUNED_THROUGH_KEY }
import { getMeta } from '../store/meta.js'
import { isoOf } from '../store/documents.js'
import type { Services } from '../services.js'
import type { Caller } from '../auth/credentials.js'
import { commonListParams, renderRow, visibility } from './resource-routes.js'
import { queryDigest } from './cursor.js'
import { parseFields, type FieldTree } from './projection.js'
import type { MachineRoute, RawRouteResult, RouteContext } from './machine-route.js'

export const ChangeItem = Type.Object({
  resourceType: Type.String({ description: 'Change-feed type, e.g. products, globalsets' }),
  resourceId: Type.Integer(),
  action: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted')]),
  updatedAt: Type.String({ format: 'date-time' }),
  occurredAt: Type.String({ format: 'date-time' }),
  snapshot: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
}, { additionalProperties: false })

const ChangesQuery = Type.Object({
  types: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: `Comma-separated: ${changeFeedTypes.join(', ')}` })),
  cursor: Type.Optional(commonListParams.cursor),
  updatedSince: Type.Optional(commonListParams.updatedSince),
  limit: Type.Optional(commonListParams.limit),
  fields: Type.Optional(commonListParams.fields),
  filter: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'resourceType:VALUE or action:VALUE expressions' })),
}, { additionalProperties: false })

export function changeRoutes(services: Services): MachineRoute[] {
  return [{
    method: 'GET', path: '/changes', key: 'changes.feed', summary: 'Change feed across resource types, in commit order', tag: 'changes',
    scope: 'changes:read', querystring: ChangesQuery, data: Type.Array(ChangeItem), list: true,
    // `fields` projects each snapshot; the change items themselves always come whole.
    projectable: false,
    errors: ['INVALID_REQUEST', 'CURSOR_EXPIRED'], cacheable: true,
    handler: (ctx) => listChanges(services, ctx),
  }]
}

function readableTypes(services: Services, caller: Caller): string[] {
  return changeFeedTypes.filter((t) => {
    const r = resourceByChangeType(t)
    return r?.scope && caller.scopes.has(r.scope) && (r.flag === undefined || services.settings[r.flag])
  })
}

function parseTypes(text: string): string[] {
  const types = [...new Set(text.split(',').map((t) => t.trim()).filter(Boolean))]
  const unknown = types.filter((t) => !(changeFeedTypes as readonly string[]).includes(t))
  if (unknown.length > 0) throw invalid('types', `unknown type ${unknown.join(', ')}; valid: ${changeFeedTypes.join(', ')}`)
  return types
}

function parseChangeFilter(text: string): { resourceType?: string; action?: string } {
  const out: { resourceType?: string; action?: string } = {}
  for (const expr of text.split(',').filter(Boolean)) {
    const [path, value] = expr.split(':')
    if (path === 'action' && ['created', 'updated', 'deleted'].includes(value)) out.action = value
    else if (path === 'resourceType' && (changeFeedTypes as readonly string[]).includes(value)) out.resourceType = value
    else throw invalid('filter', `"${expr}" is not supported; use action:created|updated|deleted or resourceType:TYPE`)
  }
  return out
}

async function listChanges(services: Services, { query, caller }: RouteContext): Promise<RawRouteResult> {
  const filter = query.filter !== undefined ? parseChangeFilter(query.filter) : {}
  const digest = queryDigest({ filter: query.filter ?? null })
  let afterSeq = 0
  let types: string[]
  let updatedSince: number | undefined = query.updatedSince !== undefined ? Date.parse(query.updatedSince) : undefined
  if (query.cursor !== undefined) {
    const c = services.cursors.decode<{ s: number; t: string[]; q: string; u?: number }>(query.cursor)
    if (c.q !== digest || !Array.isArray(c.t) || typeof c.s !== 'number') throw invalid('cursor', 'cursor belongs to a different query; repeat the filter of the first page')
    afterSeq = c.s
    types = c.t // a cursor keeps its types
    updatedSince = c.u
    const prunedThrough = Number((await getMeta(services.database.db, PRUNED_THROUGH_KEY)) ?? 0)
    if (afterSeq < prunedThrough) {
      throw new ApiError('CURSOR_EXPIRED', 'The cursor points before the change log retention; restart from a checkpoint or a full sync')
    }
  } else {
    types = query.types !== undefined ? parseTypes(query.types) : [...changeFeedTypes]
  }
  const readable = new Set(readableTypes(services, caller))
  let effective = types.filter((t) => readable.has(t))
  if (filter.resourceType) effective = effective.filter((t) => t === filter.resourceType)

  const resources = effective.map((t) => resourceByChangeType(t) as Resource)
  const fieldNames = [...new Set(resources.flatMap((r) => visibility(r, caller).allowed))]
  const fields: FieldTree | undefined = query.fields !== undefined ? parseFields(query.fields, fieldNames) : undefined

  const limit: number = query.limit ?? 50
  const rows = effective.length === 0 ? [] : await readChanges(services.database.db, { afterSeq, types: effective, updatedSince, limit: limit + 1, action: filter.action })
  const hasMore = rows.length > limit
  const page = hasMore ? rows.slice(0, limit) : rows

  // Snapshots: one query per type on the page.
  const snapshots = new Map<string, string>()
  // Records the caller may not see in their current status (entries other than live without
  // entries:read_all_statuses) leave its view: they appear as deletes without a snapshot,
  // which also tells a mirror to drop an entry that was unpublished.
  const hidden = new Set<string>()
  for (const t of new Set(page.filter((c) => c.action !== 'deleted').map((c) => c.resourceType))) {
    const r = resourceByChangeType(t) as Resource
    const ids = [...new Set(page.filter((c) => c.resourceType === t && c.action !== 'deleted').map((c) => c.resourceId))]
    const docs = await services.reader.docsByIds(r, ids, visibility(r, caller).withSensitive)
    const restricted = r.status?.otherStatusesScope !== undefined && !caller.scopes.has(r.status.otherStatusesScope)
    for (const [id, row] of docs) {
      if (restricted && (JSON.parse(row.doc) as { status?: string }).status !== r.status?.default) hidden.add(`${t}:${id}`)
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
  const nextCursor = services.cursors.encode({ s: last ? last.seq : afterSeq, t: types, q: digest, ...(updatedSince !== undefined ? { u: updatedSince } : {}) })
  return {
    rawData: '[' + items.join(',') + ']',
    pagination: { hasMore, nextCursor },
    meta: { mode: query.cursor !== undefined || updatedSince !== undefined ? 'incremental' : 'full', types: effective },
  }
}

