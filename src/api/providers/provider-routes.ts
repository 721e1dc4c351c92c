// The machine routes of loaded providers: `GET /plugins/{plugin}/{resource}` and
// `GET /plugins/{plugin}/{resource}/{id}` per resource, ordinary MachineRoutes, so the machine
// API plugin (authentication, 404/405, scope, validation, rate limits, request ids, metrics)
// and the contract (/capabilities, /openapi.json, /schema) treat them like every other route.
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import type { MachineRoute } from '../../kernel/machine-route.js'
import { commonListParams } from '../../operations/record-inputs.js'
import { toJsonSchema } from '../../contract/json-schema.js'
import type { ProviderResourceEntry } from '../../providers/provider-registry.js'
import { listProviderItems, showProviderItem, type ItemsDeps } from '../../operations/provider-items.js'

const { limit, cursor, fields, filter } = commonListParams

/** Gatehouse's list parameters plus the resource's own (their `required` kept as declared). */
function listQuery(entry: ProviderResourceEntry): TObject {
  const own = entry.params ? toJsonSchema(entry.params) : { properties: {} }
  const schema = {
    type: 'object',
    properties: { limit, cursor, fields, filter, ...(own.properties as Record<string, TSchema>) },
    ...(Array.isArray(own.required) && own.required.length > 0 ? { required: own.required } : {}),
    additionalProperties: false,
  }
  return Type.Unsafe(schema) as unknown as TObject
}

const ShowQuery = Type.Object({ fields: Type.Optional(fields) }, { additionalProperties: false })
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 256, description: 'The item\'s id' }) }, { additionalProperties: false })

export function providerRoutes(deps: ItemsDeps): MachineRoute[] {
  return deps.providers.resources().flatMap((entry): MachineRoute[] => {
    const { resource, provider } = entry
    const path = `/plugins/${provider.plugin}/${resource.name}`
    const key = `plugins.${provider.plugin}.${resource.name}`
    const common = {
      method: 'GET' as const, tag: key, scope: entry.scope,
      // The module path stays out of the public contract: it is deployment detail.
      description: [resource.description, `Served by the external provider ${provider.plugin}; 503 PROVIDER_UNAVAILABLE while its backend is down.`].filter(Boolean).join(' '),
    }
    return [
      {
        ...common, path, key: `${key}.list`, summary: `List ${resource.summary}`, list: true,
        querystring: listQuery(entry), data: Type.Array(entry.item), errors: ['INVALID_REQUEST', 'PROVIDER_UNAVAILABLE'],
        handler: ({ query, caller, request }) => {
          const { limit: l, cursor: c, fields: f, filter: x, ...params } = query as Record<string, unknown>
          return listProviderItems(deps, entry, { limit: l as number | undefined, cursor: c as string | undefined, fields: f as string | undefined, filter: x as string | undefined, params }, caller, request.id)
        },
      },
      {
        ...common, path: `${path}/:id`, key: `${key}.show`, summary: `One of ${resource.summary} by id`,
        params: IdParams, querystring: ShowQuery, data: entry.item, errors: ['INVALID_REQUEST', 'NOT_FOUND', 'PROVIDER_UNAVAILABLE'],
        handler: ({ query, caller, request }) =>
          showProviderItem(deps, entry, (request.params as { id: string }).id, (query as { fields?: string }).fields, caller, request.id),
      },
    ]
  })
}
