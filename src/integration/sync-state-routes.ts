// POST /sync-state/checkpoint and GET /sync-state/lag, plus their deprecated aliases under
// /consumers. A checkpoint belongs to an integration key, and a credential may only use its
// own id as the key (spec rules 1–3): the one exception is the legacy default token while it
// is the only credential the runtime accepts, which is how single-token sites keep several
// named consumers.
import { Type, type TSchema } from '@sinclair/typebox'
import { ApiError, invalid } from '../contract/errors.js'
import type { Caller } from '../auth/credentials.js'
import type { Services } from '../services.js'
import type { MachineRoute, RouteContext, RouteResult } from '../api/machine-route.js'
import { servedChangeTypes } from '../api/operations/list-changes.js'
import { integrationLag, SyncStateStore } from './sync-state-store.js'

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
}, { additionalProperties: false })

interface CheckpointInput {
  readonly integrationKey?: string
  readonly resourceType: string
  readonly cursor?: string
  readonly updatedSince?: string
  readonly checkpointAt?: string
  readonly metadata?: Record<string, unknown>
}

const METADATA_MAX_BYTES = 16 * 1024
const FUTURE_SKEW_MS = 5 * 60_000

/** The integration key a caller acts for; 403 when it names someone else's. */
export async function bindIntegrationKey(services: Services, caller: Caller, given: string | undefined): Promise<string> {
  if (given === undefined || given === caller.credentialId) return caller.credentialId
  if (caller.source === 'legacy' && (await services.credentials.runtimeCredentialCount()) === 1) return given
  throw new ApiError('FORBIDDEN', `integrationKey must be the calling credential's id (${caller.credentialId})`)
}

function parseTime(param: string, text: string | undefined, now: number): number | undefined {
  if (text === undefined) return undefined
  const ms = Date.parse(text)
  if (Number.isNaN(ms)) throw invalid(param, 'not an RFC 3339 date-time')
  if (ms > now + FUTURE_SKEW_MS) throw invalid(param, 'is in the future')
  return ms
}

/**
 * The change-log position a checkpoint cursor points after, when it is a /changes cursor
 * that follows this type; null for any other string (a list's cursor, the client's own
 * token), which is kept as given and leaves lag to updatedSince or checkpointAt.
 */
function cursorPosition(services: Services, cursor: string, resourceType: string): number | null {
  let c: { s?: unknown; t?: unknown; q?: unknown }
  try {
    c = services.cursors.decode(cursor)
  } catch {
    return null
  }
  if (typeof c.s !== 'number' || !Number.isInteger(c.s) || c.s < 0 || !Array.isArray(c.t) || typeof c.q !== 'string') return null
  return c.t.includes(resourceType) ? c.s : null
}

async function writeCheckpoint(services: Services, store: SyncStateStore, { body, caller }: RouteContext): Promise<RouteResult> {
  const b = body as CheckpointInput
  const now = Date.now()
  const integrationKey = await bindIntegrationKey(services, caller, b.integrationKey)
  const updatedSince = parseTime('updatedSince', b.updatedSince, now)
  const checkpointAt = parseTime('checkpointAt', b.checkpointAt, now) ?? now
  const cursorSeq = b.cursor === undefined ? null : cursorPosition(services, b.cursor, b.resourceType)
  if (b.metadata !== undefined && Buffer.byteLength(JSON.stringify(b.metadata)) > METADATA_MAX_BYTES) {
    throw invalid('metadata', `at most ${METADATA_MAX_BYTES} bytes as JSON`)
  }
  const data = await store.write({
    integrationKey, resourceType: b.resourceType, cursor: b.cursor ?? null, cursorSeq,
    updatedSince: updatedSince ?? null, checkpointAt, metadata: b.metadata ?? null, credentialId: caller.credentialId,
  }, now)
  return { data }
}

async function readLag(services: Services, { query, caller }: RouteContext): Promise<RouteResult> {
  const q = query as { integrationKey?: string; resourceType?: string }
  const integrationKey = await bindIntegrationKey(services, caller, q.integrationKey)
  const checkpoints = await integrationLag(services.database.db, integrationKey, q.resourceType)
  return {
    data: {
      integrationKey,
      checkpoints,
      totals: {
        pendingChanges: checkpoints.reduce((n, c) => n + c.pendingChanges, 0),
        maxLagSeconds: checkpoints.reduce((n, c) => Math.max(n, c.lagSeconds), 0),
      },
    },
  }
}

export function syncStateRoutes(services: Services): MachineRoute[] {
  const store = new SyncStateStore(services.database.db)
  // Families behind a flag that is off are unknown types here, as on /changes.
  const ResourceType = resourceTypeSchema(servedChangeTypes(services))
  const CheckpointBody = checkpointBody(ResourceType)
  const LagQuery = lagQuery(ResourceType)
  const checkpoint = {
    method: 'POST', body: CheckpointBody, data: CheckpointData, tag: 'sync-state', scope: 'syncstate:write',
    errors: ['INVALID_REQUEST', 'FORBIDDEN'],
    handler: (ctx: RouteContext) => writeCheckpoint(services, store, ctx),
  } as const
  const lag = {
    method: 'GET', querystring: LagQuery, data: LagData, tag: 'sync-state', scope: 'syncstate:read',
    errors: ['INVALID_REQUEST', 'FORBIDDEN'],
    handler: (ctx: RouteContext) => readLag(services, ctx),
  } as const
  return [
    { ...checkpoint, path: '/sync-state/checkpoint', key: 'syncstate.checkpoint', summary: 'Write the sync checkpoint of (integrationKey, resourceType)' },
    { ...lag, path: '/sync-state/lag', key: 'syncstate.lag', summary: "The caller's checkpoints and how far each is behind the change feed" },
    // Deprecated aliases: same behaviour; consumers:* tokens reach them because those scopes grant syncstate:*.
    { ...checkpoint, path: '/consumers/checkpoint', key: 'consumers.checkpoint', summary: 'Deprecated alias of POST /sync-state/checkpoint', deprecated: true, replacedBy: '/sync-state/checkpoint' },
    { ...lag, path: '/consumers/lag', key: 'consumers.lag', summary: 'Deprecated alias of GET /sync-state/lag', deprecated: true, replacedBy: '/sync-state/lag' },
  ]
}
