// What the contract says about one route, derived from its MachineRoute declaration: its
// parameters, its body, the schema of its success answer and the error codes it can give.
// The OpenAPI document and the schema catalog both call these, so they cannot disagree.
import type { TObject } from '@sinclair/typebox'
import type { MachineRoute } from '../kernel/machine-route.js'
import { errorCatalog, type ErrorCode } from '../kernel/errors.js'
import { ListMetaSchema, PaginationSchema } from './envelopes.js'
import { projectable, toJsonSchema, type JsonSchema } from './json-schema.js'

/**
 * Where shared schemas go: the OpenAPI document files them under components and answers a
 * `$ref`; the schema catalog answers the schema itself so each entry stands alone.
 */
export interface SchemaSink {
  ref(name: string, schema: JsonSchema): JsonSchema
}

/**
 * Codes every machine route can answer with, whatever it declares (a query parameter it does
 * not take is a 400 on any route).
 */
const ALWAYS: readonly ErrorCode[] = ['INVALID_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMIT_EXCEEDED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']

/** Error codes of a route, in status order: its own plus those the plugin adds around it. */
export function routeErrors(route: MachineRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>([...ALWAYS, ...(route.errors ?? [])])
  if (route.method === 'POST') {
    codes.add('PAYLOAD_TOO_LARGE')
    codes.add('UNSUPPORTED_MEDIA_TYPE')
    // A POST writes: with the database's disk full it is refused (reads go on).
    codes.add('STORAGE_FULL')
  }
  if (route.params) codes.add('NOT_FOUND')
  return [...codes].sort((a, b) => errorCatalog[a].status - errorCatalog[b].status)
}

export interface ParameterContract {
  readonly name: string
  readonly in: 'query' | 'path' | 'header'
  readonly required: boolean
  readonly description?: string
  readonly schema: JsonSchema
}

/** Path, query and header parameters with their constraints (type, range, enum, pattern, format, default). */
export function routeParameters(route: MachineRoute): ParameterContract[] {
  const from = (where: ParameterContract['in'], obj: TObject | undefined): ParameterContract[] => {
    if (!obj) return []
    const schema = toJsonSchema(obj)
    const required = new Set((schema.required as string[] | undefined) ?? [])
    return Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([name, s]) => ({
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(typeof s.description === 'string' ? { description: s.description } : {}),
      schema: s,
    }))
  }
  return [...from('path', route.params), ...from('query', route.querystring), ...from('header', route.headers)]
}

export function isProjectable(route: MachineRoute): boolean {
  return route.projectable ?? (route.querystring?.properties.fields !== undefined)
}

const pascal = (text: string) => text.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('')

/**
 * The schema of `data`. A list's items and a detail's object are filed under one shared name
 * (`ProductsItem`), so list and show of a resource point at the same component.
 */
export function dataSchema(route: MachineRoute, sink: SchemaSink): JsonSchema {
  const declared = toJsonSchema(route.data)
  const projected = isProjectable(route)
  const isItem = route.list === true || route.key.endsWith('.show')
  const name = isItem && route.itemName ? route.itemName : pascal(isItem ? route.tag : route.key) + (isItem ? 'Item' : 'Data')
  const share = (s: JsonSchema) => {
    if (s.type !== 'object') return projected ? projectable(s) : s
    // A projected schema requires nothing; say what an answer without `fields` always has.
    const always = projected && Array.isArray(s.required) ? { 'x-required-without-fields': s.required } : {}
    return sink.ref(name, { ...(projected ? projectable(s) : s), ...always })
  }
  if (declared.type === 'array' && typeof declared.items === 'object' && declared.items !== null) {
    return { ...declared, items: share(declared.items as JsonSchema) }
  }
  return share(declared)
}

/** The whole success body: the envelope around `data` (with pagination and meta for lists). */
export function successSchema(route: MachineRoute, sink: SchemaSink): JsonSchema {
  const data = dataSchema(route, sink)
  if (route.bare) return data
  const properties: Record<string, JsonSchema> = { ok: { type: 'boolean', const: true }, data }
  const required = ['ok', 'data', 'requestId']
  if (route.list) {
    properties.pagination = sink.ref('Pagination', toJsonSchema(PaginationSchema))
    required.push('pagination')
    // A list that takes updatedSince always says whether it answered in full or incremental
    // mode; other lists (the DLQ) have no modes and may leave meta out.
    if (route.meta || route.querystring?.properties.updatedSince !== undefined) required.push('meta')
  }
  if (route.meta) properties.meta = toJsonSchema(route.meta)
  else if (route.list) properties.meta = sink.ref('ListMeta', toJsonSchema(ListMetaSchema))
  // Any handler may add meta (RouteResult allows it); a route that declares none gets the
  // loosest true description: an object. Declaring `meta` on the route makes it precise.
  else properties.meta = { type: 'object', description: 'Route-specific metadata, when present' }
  properties.requestId = { type: 'string', description: 'Equals the X-Request-Id header' }
  return { type: 'object', required, properties, additionalProperties: false }
}

export function bodySchema(route: MachineRoute): JsonSchema | undefined {
  return route.body ? toJsonSchema(route.body) : undefined
}

/** The OpenAPI-style path: `:id` becomes `{id}`. */
export const openapiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}')
