// GET /schema: the query, body and response schema of every enabled endpoint, or of one
// (`endpoint=products.list`), each self-contained (no references to follow). The schemas are
// the ones the OpenAPI document gives, built by the same functions.
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { BASE_PATH, routeEnabled, successorPath, type MachineRoute } from '../kernel/machine-route.js'
import type { Settings } from '../kernel/settings.js'
import { errorCatalog, notFound } from '../kernel/errors.js'
import { toJsonSchema, type JsonSchema } from './json-schema.js'
import { bodySchema, routeErrors, successSchema, type SchemaSink } from './route-contract.js'

/** Contract versions this deployment can describe; the base path carries the current one. */
export const SCHEMA_VERSIONS = ['v1'] as const

const inline: SchemaSink = { ref: (_name, schema) => schema }

const AnySchema = Type.Object({}, { additionalProperties: true, description: 'A JSON Schema' })
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()])

const CatalogEntry = Type.Object({
  key: Type.String(),
  method: Type.Union([Type.Literal('GET'), Type.Literal('POST')]),
  path: Type.String(),
  summary: Type.String(),
  scope: Type.String(),
  optionalScopes: Type.Array(Type.String()),
  list: Type.Boolean(),
  deprecated: Type.Boolean(),
  replacedBy: Nullable(Type.String()),
  query: Nullable(AnySchema),
  params: Nullable(AnySchema),
  body: Nullable(AnySchema),
  response: AnySchema,
  errors: Type.Array(Type.Object({ code: Type.String(), status: Type.Integer() }, { additionalProperties: false })),
}, { additionalProperties: false })

export const SchemaCatalogData = Type.Object({
  version: Type.String(),
  endpoints: Type.Array(CatalogEntry),
}, { additionalProperties: false })

type Entry = Static<typeof CatalogEntry>

const SchemaQuery = Type.Object({
  version: Type.Optional(Type.String({ enum: [...SCHEMA_VERSIONS], default: 'v1', description: `Contract version; supported: ${SCHEMA_VERSIONS.join(', ')}` })),
  endpoint: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_.-]+$', description: 'One endpoint key, e.g. products.list, entries.show, changes.feed' })),
}, { additionalProperties: false })

export function catalogEntry(route: MachineRoute): Entry {
  const schemaOf = (s: MachineRoute['querystring']): JsonSchema | null => (s ? toJsonSchema(s) : null)
  return {
    key: route.key,
    method: route.method,
    path: BASE_PATH + route.path,
    summary: route.summary,
    scope: route.scope,
    optionalScopes: [...(route.optionalScopes ?? [])],
    list: route.list === true,
    deprecated: route.deprecated === true,
    replacedBy: successorPath(route),
    query: schemaOf(route.querystring),
    params: schemaOf(route.params),
    body: bodySchema(route) ?? null,
    response: successSchema(route, inline),
    errors: routeErrors(route).map((code) => ({ code, status: errorCatalog[code].status })),
  }
}

export function schemaCatalogRoute(settings: Settings, getRoutes: () => readonly MachineRoute[]): MachineRoute {
  let entries: Map<string, Entry> | undefined
  return {
    method: 'GET', path: '/schema', key: 'schema.catalog', tag: 'contract', scope: 'schema:read',
    summary: 'Query, body and response schema of every endpoint, or of one',
    querystring: SchemaQuery, data: SchemaCatalogData, errors: ['INVALID_REQUEST', 'NOT_FOUND'],
    handler: async ({ query }) => {
      entries ??= new Map(getRoutes().filter((r) => routeEnabled(r, settings)).map((r) => [r.key, catalogEntry(r)]))
      const version: string = query.version ?? 'v1'
      if (query.endpoint === undefined) return { data: { version, endpoints: [...entries.values()] } }
      const one = entries.get(query.endpoint)
      if (!one) throw notFound(`Unknown endpoint key "${query.endpoint}"; GET ${BASE_PATH}/schema lists every key`)
      return { data: { version, endpoints: [one] } }
    },
  }
}
