// The sync-state operations: write a checkpoint, read the lag. They take parsed input and a
// caller and know nothing of HTTP; the /sync-state routes and the MCP tools both call them.
// A checkpoint belongs to an integration key, and a credential may only use its own id as
// the key (spec rules 1–3): the one exception is the legacy default token while it is the
// only credential the runtime accepts, which is how single-token sites keep several named
// consumers.
import { ApiError, invalid } from '../kernel/errors.js'
import type { Caller } from '../kernel/caller.js'
import type { Services } from './services.js'
import { readFeedBounds } from '../store/feed-position.js'
import { integrationLag, SyncStateStore, type Checkpoint, type CheckpointLag } from '../integration/sync-state-store.js'

export type SyncStateContext = Pick<Services, 'database' | 'credentials' | 'cursors' | 'settings'>

/** Validated checkpoint body (see the route's schema). */
export interface CheckpointInput {
  readonly integrationKey?: string
  readonly resourceType: string
  readonly cursor?: string
  readonly updatedSince?: string
  readonly checkpointAt?: string
  readonly metadata?: Record<string, unknown>
}

export interface LagInput {
  readonly integrationKey?: string
  readonly resourceType?: string
}

export interface Lag {
  readonly integrationKey: string
  readonly checkpoints: readonly CheckpointLag[]
  readonly totals: { readonly pendingChanges: number; readonly maxLagSeconds: number }
  readonly retention: { readonly days: number; readonly oldestPosition: number }
}

const METADATA_MAX_BYTES = 16 * 1024
const FUTURE_SKEW_MS = 5 * 60_000

/** The integration key a caller acts for; 403 when it names someone else's. */
export async function bindIntegrationKey(ctx: SyncStateContext, caller: Caller, given: string | undefined): Promise<string> {
  if (given === undefined || given === caller.credentialId) return caller.credentialId
  if (caller.source === 'legacy' && (await ctx.credentials.runtimeCredentialCount()) === 1) return given
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
function cursorPosition(ctx: SyncStateContext, cursor: string, resourceType: string): number | null {
  let c: { s?: unknown; t?: unknown; q?: unknown }
  try {
    c = ctx.cursors.decode(cursor)
  } catch {
    return null
  }
  if (typeof c.s !== 'number' || !Number.isInteger(c.s) || c.s < 0 || !Array.isArray(c.t) || typeof c.q !== 'string') return null
  return c.t.includes(resourceType) ? c.s : null
}

export async function writeCheckpoint(ctx: SyncStateContext, input: CheckpointInput, caller: Caller): Promise<Checkpoint> {
  const now = Date.now()
  const integrationKey = await bindIntegrationKey(ctx, caller, input.integrationKey)
  const updatedSince = parseTime('updatedSince', input.updatedSince, now)
  const checkpointAt = parseTime('checkpointAt', input.checkpointAt, now) ?? now
  const cursorSeq = input.cursor === undefined ? null : cursorPosition(ctx, input.cursor, input.resourceType)
  if (input.metadata !== undefined && Buffer.byteLength(JSON.stringify(input.metadata)) > METADATA_MAX_BYTES) {
    throw invalid('metadata', `at most ${METADATA_MAX_BYTES} bytes as JSON`)
  }
  return new SyncStateStore(ctx.database.db).write({
    integrationKey, resourceType: input.resourceType, cursor: input.cursor ?? null, cursorSeq,
    updatedSince: updatedSince ?? null, checkpointAt, metadata: input.metadata ?? null, credentialId: caller.credentialId,
  }, now)
}

export async function readLag(ctx: SyncStateContext, input: LagInput, caller: Caller): Promise<Lag> {
  const integrationKey = await bindIntegrationKey(ctx, caller, input.integrationKey)
  const checkpoints = await integrationLag(ctx.database.db, integrationKey, input.resourceType)
  return {
    integrationKey,
    checkpoints,
    totals: {
      pendingChanges: checkpoints.reduce((n, c) => n + c.pendingChanges, 0),
      maxLagSeconds: checkpoints.reduce((n, c) => Math.max(n, c.lagSeconds), 0),
    },
    retention: { days: ctx.settings.changesRetentionDays, oldestPosition: (await readFeedBounds(ctx.database.db)).oldest },
  }
}
