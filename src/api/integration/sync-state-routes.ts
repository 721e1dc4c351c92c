// POST /sync-state/checkpoint and GET /sync-state/lag, plus their deprecated aliases under
// /consumers: thin HTTP surfaces over writeCheckpoint and readLag (sync-state-operations.ts).
import { Type, type TSchema } from '@sinclair/typebox'
import type { Services } from '../../operations/services.js'
import type { MachineRoute, RouteContext } from '../../kernel/machine-route.js'
import { servedChangeTypes } from '../../operations/list-changes.js'
import { readLag, writeCheckpoint, type CheckpointInput, type LagInput } from '../../operations/sync-state.js'

/** The /consumers/* aliases are served until this date (docs/api.md, "Versioning and deprecation"). */
export const CONSUMERS_SUNSET = '2027-06-30T00:00:00Z'

const resourceTypeSchema = (changeFeedTypes: readonly string[]) => Type.Union(changeFeedTypes.map((t) => Type.Literal(t)), { description: 'A /changes type' })
const IntegrationKey = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._:-]+$', description: "Defaults to the calling credential's id" })
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()])

/** Longest checkpoint cursor kept (docs/operations.md). */
export const CHECKPOINT_CURSOR_MAX_LENGTH = 2048

const checkpointBody = (ResourceType: TSchema) => Type.Object({
  integrationKey: Type.Optional(IntegrationKey),
  resourceType: ResourceType,
  cursor: Type.Optional(Type.String({
    minLength: 1, maxLength: CHECKPOINT_CURSOR_MAX_LENGTH,
    description: `Any opaque string of 1 to ${CHECKPOINT_CURSOR_MAX_LENGTH} characters, kept as given. When it is a /changes pagination.nextCursor whose types include resourceType, lag counts from its position`,
  })),
  updatedSince: Type.Optional(Type.String({ format: 'date-time' })),
  checkpointAt: Type.Optional(Type.String({ format: 'date-time', description: 'Defaults to now' })),
  metadata: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Free JSON object, at most 16 KiB' })),
}, { additionalProperties: false })

const lagQuery = (ResourceType: TSchema) => Type.Object({
  integrationKey: Type.Optional(IntegrationKey),
  resourceType: Type.Optional(ResourceType),
}, { additionalProperties: false })

const CheckpointFields = {
  integrationKey: Type.String(),
  resourceType: Type.String(),
  cursor: Nullable(Type.String()),
  updatedSince: Nullable(Type.String({ format: 'date-time' })),
  checkpointAt: Type.String({ format: 'date-time' }),
  metadata: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
}

export const CheckpointData = Type.Object(CheckpointFields, { additionalProperties: false })

export const LagData = Type.Object({
  integrationKey: Type.String(),
  checkpoints: Type.Array(Type.Object({
    ...CheckpointFields,
    pendingChanges: Type.Integer({ minimum: 0 }),
    lagSeconds: Type.Number({ minimum: 0 }),
    positionBy: Type.Union([Type.Literal('cursor'), Type.Literal('updatedSince'), Type.Literal('checkpointAt')]),
    positionAt: Nullable(Type.String({ format: 'date-time' })),
    newestChangeAt: Nullable(Type.String({ format: 'date-time' })),
    cursorExpired: Type.Boolean(),
  }, { additionalProperties: false })),
  totals: Type.Object({ pendingChanges: Type.Integer({ minimum: 0 }), maxLagSeconds: Type.Number({ minimum: 0 }) }),
  retention: Type.Object({
    days: Type.Integer({ minimum: 1, description: 'How long the change log keeps changes' }),
    oldestPosition: Type.Integer({ minimum: 0, description: 'The oldest feed position to resume from (every change after it is kept); a checkpoint before it must reset (docs/sync.md)' }),
  }, { additionalProperties: false }),
}, { additionalProperties: false })

export function syncStateRoutes(services: Services): MachineRoute[] {
  // Families behind a flag that is off are unknown types here, as on /changes.
  const ResourceType = resourceTypeSchema(servedChangeTypes(services))
  const CheckpointBody = checkpointBody(ResourceType)
  const LagQuery = lagQuery(ResourceType)
  const checkpoint = {
    method: 'POST', body: CheckpointBody, data: CheckpointData, tag: 'sync-state', scope: 'syncstate:write',
    errors: ['INVALID_REQUEST', 'FORBIDDEN'],
    handler: async ({ body, caller }: RouteContext) => ({ data: await writeCheckpoint(services, body as CheckpointInput, caller) }),
  } as const
  const lag = {
    method: 'GET', querystring: LagQuery, data: LagData, tag: 'sync-state', scope: 'syncstate:read',
    errors: ['INVALID_REQUEST', 'FORBIDDEN'],
    handler: async ({ query, caller }: RouteContext) => ({ data: await readLag(services, query as LagInput, caller) }),
  } as const
  return [
    { ...checkpoint, path: '/sync-state/checkpoint', key: 'syncstate.checkpoint', summary: 'Write the sync checkpoint of (integrationKey, resourceType)' },
    { ...lag, path: '/sync-state/lag', key: 'syncstate.lag', summary: "The caller's checkpoints and how far each is behind the change feed" },
    // Deprecated aliases: same behaviour; consumers:* tokens reach them because those scopes grant syncstate:*.
    { ...checkpoint, path: '/consumers/checkpoint', key: 'consumers.checkpoint', summary: 'Deprecated alias of POST /sync-state/checkpoint', deprecated: true, replacedBy: '/sync-state/checkpoint', sunset: CONSUMERS_SUNSET },
    { ...lag, path: '/consumers/lag', key: 'consumers.lag', summary: 'Deprecated alias of GET /sync-state/lag', deprecated: true, replacedBy: '/sync-state/lag', sunset: CONSUMERS_SUNSET },
  ]
}
