// GET /changes: the change feed in commit order, a thin HTTP surface over listChanges.
import { Type } from '@sinclair/typebox'
import type { Services } from '../operations/services.js'
import { listChanges, servedChangeTypes } from '../operations/list-changes.js'
import { commonListParams } from '../operations/record-inputs.js'
import type { MachineRoute } from '../kernel/machine-route.js'

export const ChangeItem = Type.Object({
  resourceType: Type.String({ description: 'Change-feed type, e.g. products, globalsets' }),
  resourceId: Type.Integer(),
  action: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted')]),
  updatedAt: Type.String({ format: 'date-time' }),
  occurredAt: Type.String({ format: 'date-time' }),
  snapshot: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
}, { additionalProperties: false })

const changesQuery = (changeFeedTypes: readonly string[]) => Type.Object({
  types: Type.Optional(Type.String({
    minLength: 1, maxLength: 500,
    description: `Comma-separated, any of: ${changeFeedTypes.join(', ')}. Each needs its own read scope (403 otherwise); without types, the types the caller can read. A cursor keeps its types`,
  })),
  cursor: Type.Optional(commonListParams.cursor),
  updatedSince: Type.Optional(commonListParams.updatedSince),
  limit: Type.Optional(commonListParams.limit),
  fields: Type.Optional(commonListParams.fields),
  filter: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'resourceType:VALUE or action:VALUE expressions' })),
}, { additionalProperties: false })

export function changeRoutes(services: Services): MachineRoute[] {
  return [{
    method: 'GET', path: '/changes', key: 'changes.feed', summary: 'Change feed across resource types, in commit order', tag: 'changes',
    scope: 'changes:read', querystring: changesQuery(servedChangeTypes(services)), data: Type.Array(ChangeItem), list: true,
    // `fields` projects each snapshot; the change items themselves always come whole.
    projectable: false,
    errors: ['INVALID_REQUEST', 'FORBIDDEN', 'CURSOR_EXPIRED'], cacheable: true,
    handler: ({ query, caller }) => listChanges(services, query, caller),
  }]
}
