// GET /changes: the change feed in commit order, a thin HTTP surface over listChanges.
import { Type } from '@sinclair/typebox'
import type { Services } from '../operations/services.js'
import { listChanges, servedChangeTypes } from '../operations/list-changes.js'
import { BOOLEAN_SPELLINGS } from '../kernel/booleans.js'
import { commonListParams } from '../operations/record-inputs.js'
import { feedPosition } from '../operations/feed-position.js'
import { ORIGIN_KINDS } from '../store/change-origin.js'
import type { MachineRoute } from '../kernel/machine-route.js'

export const ChangeOriginView = Type.Object({
  kind: Type.Union(ORIGIN_KINDS.map((k) => Type.Literal(k)), { description: 'Who caused the change' }),
  credentialId: Type.Optional(Type.String({ description: 'Only on changes made by or for the calling credential' })),
  executionId: Type.Optional(Type.String({ description: 'The control execution that made it (own changes only)' })),
  runId: Type.Optional(Type.String({ description: 'The job run that made it (own changes only)' })),
}, { additionalProperties: false })

export const ChangeItem = Type.Object({
  position: Type.Integer({ minimum: 1, description: 'The change\'s position in the feed: resume after it with ?after=<position>; webhooks name the same number' }),
  resourceType: Type.String({ description: 'Change-feed type, e.g. products, globalsets' }),
  resourceId: Type.Integer(),
  action: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted')]),
  updatedAt: Type.String({ format: 'date-time' }),
  occurredAt: Type.String({ format: 'date-time' }),
  origin: ChangeOriginView,
  snapshot: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
}, { additionalProperties: false })

const changesQuery = (changeFeedTypes: readonly string[]) => Type.Object({
  types: Type.Optional(Type.String({
    minLength: 1, maxLength: 500,
    description: `Comma-separated, any of: ${changeFeedTypes.join(', ')}. Each needs its own read scope (403 otherwise); without types, the types the caller can read. A cursor keeps its types`,
  })),
  cursor: Type.Optional(commonListParams.cursor),
  after: Type.Optional(Type.Integer({ minimum: 0, description: 'Start after this position (GET /changes/position before a full copy, a webhook\'s position, an item\'s position); not with cursor' })),
  updatedSince: Type.Optional(Type.String({ format: 'date-time', description: 'Only changes whose record was updated at or after this time (updatedAt >= updatedSince); incremental mode. Not a hand-over point: use after' })),
  origin: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: `Comma-separated origin kinds to keep, any of: ${ORIGIN_KINDS.join(', ')}` })),
  excludeOwn: Type.Optional(Type.Union(BOOLEAN_SPELLINGS.map((v) => Type.Literal(v)), { description: 'Leave out changes made by or for the calling credential (a two-way sync\'s own writes)' })),
  limit: Type.Optional(commonListParams.limit),
  fields: Type.Optional(commonListParams.fields),
  filter: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Comma-separated path:value expressions on the snapshot, as on lists (~ contains, * wildcard, dot paths), plus resourceType:TYPE and action:created|updated|deleted' })),
}, { additionalProperties: false })

const FeedPositionData = Type.Object({
  position: Type.Integer({ minimum: 0, description: 'The newest position: take it before a full copy, then follow /changes?after=<position>' }),
  oldestPosition: Type.Integer({ minimum: 0, description: 'The oldest position to resume from: every change after it is kept, and `after` at it or later is served; an older cursor or after answers 410 CURSOR_EXPIRED' }),
  retentionDays: Type.Integer({ minimum: 1 }),
}, { additionalProperties: false })

export function changeRoutes(services: Services): MachineRoute[] {
  return [{
    method: 'GET', path: '/changes/position', key: 'changes.position', summary: 'The feed\'s newest position, for the hand-over from a full copy to following', tag: 'changes',
    scope: 'changes:read', querystring: Type.Object({}, { additionalProperties: false }), data: FeedPositionData,
    errors: [],
    handler: async () => ({ data: await feedPosition(services) }),
  }, {
    method: 'GET', path: '/changes', key: 'changes.feed', summary: 'Change feed across resource types, in commit order', tag: 'changes',
    scope: 'changes:read', querystring: changesQuery(servedChangeTypes(services)), data: Type.Array(ChangeItem), list: true,
    // `fields` projects each snapshot; the change items themselves always come whole.
    projectable: false,
    errors: ['INVALID_REQUEST', 'FORBIDDEN', 'CURSOR_EXPIRED'], cacheable: true, cachePerCredential: true,
    gathersProblems: true,
    handler: ({ query, caller, problems }) => listChanges(services, query, caller, problems),
  }]
}
