// List and detail routes for every served resource, built from the declarations:
// parameters, selectors, status defaults, sensitive fields and item schemas all come from
// the resource, never written per resource by hand.
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import type { Resource } from '../resources/declare.js'
import { servedResources } from '../resources/index.js'
import { ApiError, invalid, missingScope, notFound } from '../contract/errors.js'
import { parseBoolean } from '../settings.js'
import { mergeDocText } from '../store/documents.js'
import { likePattern, type Condition, type RecordRow, type SortKey } from '../store/record-query.js'
import type { Caller } from '../auth/credentials.js'
import type { Services } from '../services.js'
import { queryDigest } from './cursor.js'
import { parseFilter } from './filter.js'
import { parseFields, project, type FieldTree } from './projection.js'
import type { MachineRoute, RawRouteResult, RouteContext } from './machine-route.js'

export const BOOLEAN_SPELLINGS = ['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'] as const
const BooleanParam = (description: string) =>
  Type.Union(BOOLEAN_SPELLINGS.map((v) => Type.Literal(v)), { description })

/** Parameters every list endpoint takes. */
export const commonListParams = {
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1..200' }),
  cursor: Type.String({ minLength: 1, maxLength: 2048, description: 'pagination.nextCursor of the previous page' }),
  updatedSince: Type.String({ format: 'date-time', description: 'Only items with updatedAt >= this; incremental mode' }),
  fields: Type.String({ minLength: 1, maxLength: 4000, description: 'Comma-separated dot paths to return' }),
  filter: Type.String({ minLength: 1, maxLength: 8000, description: 'Comma-separated path:value expressions; ~ contains, * wildcard' }),
}

export function listQuerySchema(r: Resource): TObject {
  const props: Record<string, TSchema> = { ...commonListParams }
  if (r.status) {
    props.status = Type.Union([...r.status.values, 'all'].map((v) => Type.Literal(v)), {
      description: r.status.default ? `Default ${r.status.default}; all removes the status filter` : 'Status filter',
    })
  }
  if (r.sort) {
    props.sort = Type.Union(r.sort.allowed.flatMap((k) => [Type.Literal(k), Type.Literal('-' + k)]), {
      description: 'Sort key; a leading - reverses',
    })
  }
  for (const [name, p] of Object.entries(r.listParams ?? {})) {
    switch (p.kind) {
      case 'equals': props[name] = p.type === 'integer' ? Type.Integer({ minimum: 1 }) : Type.String({ minLength: 1, maxLength: 255 }); break
      case 'search': props[name] = Type.String({ minLength: 1, maxLength: 200, description: 'Case-insensitive contains' }); break
      case 'arrayContains': props[name] = Type.String({ minLength: 1, maxLength: 255 }); break
      case 'withinDays': props[name] = Type.Integer({ minimum: 1, maximum: 3650, description: 'Only the last N days' }); break
      case 'lowStock': props[name] = BooleanParam('Only products with limited stock at or under lowStockThreshold (full-sync mode only)'); break
      case 'integer': props[name] = Type.Integer({ minimum: p.min, default: p.default }); break
    }
  }
  return Type.Object(mapOptional(props), { additionalProperties: false })
}

export function showQuerySchema(r: Resource): TObject {
  const props: Record<string, TSchema> = { fields: commonListParams.fields }
  for (const s of [...(r.selectors ?? []), ...(r.selectorFilters ?? [])]) {
    props[s.name] = s.type === 'integer' ? Type.Integer({ minimum: 1 }) : Type.String({ minLength: 1, maxLength: 255 })
  }
  return Type.Object(mapOptional(props), { additionalProperties: false })
}

function mapOptional(props: Record<string, TSchema>): Record<string, TSchema> {
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, Type.Optional(v)]))
}

/** What the caller may see of a resource. */
export function visibility(r: Resource, caller: Caller) {
  const withSensitive = r.sensitiveScope !== undefined && caller.scopes.has(r.sensitiveScope)
  const allowed = [...r.publicKeys, ...(withSensitive ? r.sensitiveKeys : [])]
  const denied = new Map(withSensitive ? [] : r.sensitiveKeys.map((k) => [k, r.sensitiveScope as string]))
  return { withSensitive, allowed, denied }
}

export function renderRow(row: RecordRow, fields: FieldTree | undefined): string {
  const text = mergeDocText(row.doc, row.sensitive)
  return fields ? JSON.stringify(project(JSON.parse(text), fields)) : text
}

export function resourceRoutes(services: Services): MachineRoute[] {
  const routes: MachineRoute[] = []
  for (const r of servedResources) {
    const scope = r.scope as string
    const optionalScopes = [r.sensitiveScope, r.status?.otherStatusesScope].filter((s): s is string => !!s)
    routes.push({
      method: 'GET', path: `/${r.type}`, key: `${r.type}.list`, summary: `List ${r.summary.toLowerCase()}`, tag: r.type,
      scope, optionalScopes, flag: r.flag, querystring: listQuerySchema(r), data: Type.Array(r.fullItem), list: true,
      errors: ['INVALID_REQUEST'],
      // Pages that depend on the clock (lastDays) are not cached.
      cacheable: !Object.values(r.listParams ?? {}).some((p) => p.kind === 'withinDays'),
      handler: (ctx) => listResource(services, r, ctx),
    })
    if (r.selectors) {
      routes.push({
        method: 'GET', path: `/${r.type}/show`, key: `${r.type}.show`, summary: `One of ${r.summary.toLowerCase()} by ${r.selectors.map((s) => s.name).join(' or ')}`,
        tag: r.type, scope, optionalScopes, flag: r.flag, querystring: showQuerySchema(r), data: r.fullItem,
        errors: ['INVALID_REQUEST', 'NOT_FOUND'], cacheable: true,
        handler: (ctx) => showResource(services, r, ctx),
      })
    }
  }
  return routes
}

async function listResource(services: Services, r: Resource, { query, caller }: RouteContext): Promise<RawRouteResult> {
  const { withSensitive, allowed, denied } = visibility(r, caller)
  const conditions: Condition[] = []
  const digestParts: Record<string, unknown> = { type: r.type }

  if (r.status) {
    const status: string | undefined = query.status ?? r.status.default
    if (r.status.otherStatusesScope && status !== r.status.default && !caller.scopes.has(r.status.otherStatusesScope)) {
      throw missingScope(r.status.otherStatusesScope)
    }
    if (status && status !== 'all') conditions.push({ kind: 'eq', column: 'status', value: status })
    digestParts.status = status ?? 'all'
  }
  for (const [name, p] of Object.entries(r.listParams ?? {})) {
    const v = query[name]
    if (v === undefined) continue
    digestParts[name] = v
    switch (p.kind) {
      case 'equals': conditions.push({ kind: 'eq', column: p.column, value: v }); break
      case 'search': conditions.push({ kind: 'search', columns: r.searchColumns ?? [], pattern: likePattern(v, { contains: true, wildcard: false }) }); break
      case 'arrayContains': conditions.push({ kind: 'path', test: { source: 'doc', path: [p.path], arrayAt: 1, op: 'exact', value: v } }); break
      case 'withinDays': conditions.push({ kind: 'gte', column: p.column, value: Date.now() - v * 86_400_000 }); break
      case 'lowStock':
        if (parseBoolean(v)) {
          if (query.updatedSince !== undefined) throw invalid('lowStock', 'lowStock is available in full-sync mode only (without updatedSince)')
          conditions.push({ kind: 'lowStock', threshold: query.lowStockThreshold ?? 10 })
        }
        break
      case 'integer': break
    }
  }
  if (query.filter !== undefined) {
    const tests = parseFilter(query.filter, { schema: r.fullItem, sensitiveKeys: r.sensitiveKeys, sensitiveAllowed: withSensitive, sensitiveScope: r.sensitiveScope })
    for (const test of tests) conditions.push({ kind: 'path', test })
    digestParts.filter = query.filter
  }
  const sortText: string = query.sort ?? 'updatedAt'
  const sort = sortText.replace(/^-/, '') as SortKey
  const desc = sortText.startsWith('-')
  digestParts.sort = sortText
  const fields = query.fields !== undefined ? parseFields(query.fields, allowed, denied) : undefined

  const digest = queryDigest(digestParts)
  let after: { key: string | number; id: number } | undefined
  let updatedSince: number | undefined = query.updatedSince !== undefined ? Date.parse(query.updatedSince) : undefined
  if (query.cursor !== undefined) {
    const c = services.cursors.decode<{ k: string | number; i: number; q: string; u?: number }>(query.cursor)
    if (c.q !== digest) throw invalid('cursor', 'cursor belongs to a different query; repeat the parameters of the first page')
    if (typeof c.i !== 'number' || (typeof c.k !== 'number' && typeof c.k !== 'string')) throw invalid('cursor', 'malformed cursor')
    after = { key: c.k, id: c.i }
    // The cursor wins over updatedSince: it carries the lower bound of the first page.
    updatedSince = c.u
  }
  if (updatedSince !== undefined) conditions.push({ kind: 'gte', column: 'updatedAt', value: updatedSince })

  const limit: number = query.limit ?? 50
  const rows = await services.reader.list(r, { conditions, sort, desc, after, limit: limit + 1, withSensitive })
  const hasMore = rows.length > limit
  const page = hasMore ? rows.slice(0, limit) : rows
  const last = page[page.length - 1]
  const nextCursor = hasMore && last ? services.cursors.encode({ k: last.sortKey, i: last.id, q: digest, ...(updatedSince !== undefined ? { u: updatedSince } : {}) }) : null
  return {
    rawData: '[' + page.map((row) => renderRow(row, fields)).join(',') + ']',
    pagination: { hasMore, nextCursor },
    meta: { mode: updatedSince !== undefined ? 'incremental' : 'full' },
  }
}

async function showResource(services: Services, r: Resource, { query, caller }: RouteContext): Promise<RawRouteResult> {
  const { withSensitive, allowed, denied } = visibility(r, caller)
  const selectors = (r.selectors ?? []).filter((s) => query[s.name] !== undefined)
  const names = (r.selectors ?? []).map((s) => s.name)
  if (selectors.length !== 1) {
    throw new ApiError('INVALID_REQUEST', `Give exactly one of: ${names.join(', ')}`,
      names.map((n) => ({ param: n, problem: `exactly one of ${names.join(', ')} is required` })))
  }
  const where: Record<string, string | number> = { [selectors[0].column]: query[selectors[0].name] }
  for (const f of r.selectorFilters ?? []) if (query[f.name] !== undefined) where[f.column] = query[f.name]
  if (r.status?.otherStatusesScope && !caller.scopes.has(r.status.otherStatusesScope) && r.status.default) where.status = r.status.default
  const fields = query.fields !== undefined ? parseFields(query.fields, allowed, denied) : undefined
  const row = await services.reader.findOne(r, where, withSensitive)
  if (!row) throw notFound(`No ${r.type} record matches ${selectors[0].name}=${String(query[selectors[0].name])}`)
  return { rawData: renderRow(row, fields) }
}
