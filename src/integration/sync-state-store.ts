// Sync checkpoints and the lag computed from them. A checkpoint's position in the change log
// is, in order of preference: the sequence number inside its /changes cursor, its
// updatedSince, or its checkpointAt. Lag is computed when read, never stored, so it grows
// while a consumer stands still.
import type { Db } from '../store/database.js'
import { getMeta } from '../store/meta.js'
import { PRUNED_THROUGH_KEY } from '../store/change-log.js'
import { pendingChanges, type LagPosition } from '../store/change-lag.js'

export interface Checkpoint {
  readonly integrationKey: string
  readonly resourceType: string
  readonly cursor: string | null
  readonly updatedSince: string | null
  readonly checkpointAt: string
  readonly metadata: Record<string, unknown> | null
}

export interface CheckpointWrite {
  readonly integrationKey: string
  readonly resourceType: string
  readonly cursor: string | null
  /** Change-log sequence number the cursor points after. */
  readonly cursorSeq: number | null
  readonly updatedSince: number | null
  readonly checkpointAt: number
  readonly metadata: Record<string, unknown> | null
  readonly credentialId: string
}

export interface CheckpointLag extends Checkpoint {
  /** Changes of this type after the checkpoint's position. */
  readonly pendingChanges: number
  /** Seconds between the checkpoint's position and the newest change of this type (0 when caught up). */
  readonly lagSeconds: number
  /** What the position was taken from. */
  readonly positionBy: 'cursor' | 'updatedSince' | 'checkpointAt'
  readonly positionAt: string | null
  readonly newestChangeAt: string | null
  /** The cursor points before the change log's retention: /changes would answer 410. */
  readonly cursorExpired: boolean
}

interface Row {
  integration_key: string
  resource_type: string
  cursor: string | null
  cursor_seq: number | null
  updated_since: number | null
  checkpoint_at: number
  metadata: unknown
}

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString())
const parseJson = (v: unknown): Record<string, unknown> | null =>
  v === null || v === undefined ? null : typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : (v as Record<string, unknown>)

function toCheckpoint(r: Row): Checkpoint {
  return {
    integrationKey: r.integration_key,
    resourceType: r.resource_type,
    cursor: r.cursor,
    updatedSince: iso(r.updated_since),
    checkpointAt: iso(r.checkpoint_at) as string,
    metadata: parseJson(r.metadata),
  }
}

/** How many checkpoints are stored (diagnostics). */
export async function countCheckpoints(db: Db): Promise<number> {
  const row = await db.selectFrom('sync_checkpoints').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()
  return Number(row?.n ?? 0)
}

/** The checkpoints of an integration key with their lag now, judged against the change log's retention. */
export async function integrationLag(db: Db, integrationKey: string, resourceType?: string): Promise<CheckpointLag[]> {
  const prunedThrough = Number((await getMeta(db, PRUNED_THROUGH_KEY)) ?? 0)
  return new SyncStateStore(db).lag(integrationKey, { resourceType, prunedThrough })
}

export class SyncStateStore {
  constructor(private readonly db: Db) {}

  /** Writes (or replaces) the checkpoint of (integrationKey, resourceType); last write wins, so a consumer may rewind. */
  async write(c: CheckpointWrite, now = Date.now()): Promise<Checkpoint> {
    const values = {
      cursor: c.cursor,
      cursor_seq: c.cursorSeq,
      updated_since: c.updatedSince,
      checkpoint_at: c.checkpointAt,
      metadata: c.metadata === null ? null : JSON.stringify(c.metadata),
      credential_id: c.credentialId,
      written_at: now,
    }
    await this.db.insertInto('sync_checkpoints')
      .values({ integration_key: c.integrationKey, resource_type: c.resourceType, ...values })
      .onConflict((oc) => oc.columns(['integration_key', 'resource_type']).doUpdateSet(values))
      .execute()
    const row = await this.db.selectFrom('sync_checkpoints').selectAll()
      .where('integration_key', '=', c.integrationKey).where('resource_type', '=', c.resourceType)
      .executeTakeFirstOrThrow()
    return toCheckpoint(row as Row)
  }

  /** Every checkpoint of a key with its lag, in resource-type order. */
  async lag(integrationKey: string, opts: { resourceType?: string; prunedThrough: number }): Promise<CheckpointLag[]> {
    let q = this.db.selectFrom('sync_checkpoints').selectAll().where('integration_key', '=', integrationKey)
    if (opts.resourceType) q = q.where('resource_type', '=', opts.resourceType)
    const rows = (await q.orderBy('resource_type').execute()) as Row[]
    const out: CheckpointLag[] = []
    for (const row of rows) out.push(await this.lagOf(row, opts.prunedThrough))
    return out
  }

  private async lagOf(row: Row, prunedThrough: number): Promise<CheckpointLag> {
    const position: LagPosition = row.cursor_seq !== null ? { by: 'cursor', seq: Number(row.cursor_seq) }
      : row.updated_since !== null ? { by: 'updatedSince', at: Number(row.updated_since) }
      : { by: 'checkpointAt', at: Number(row.checkpoint_at) }
    const pending = await pendingChanges(this.db, row.resource_type, position)
    const positionBy: CheckpointLag['positionBy'] = position.by
    const positionAt = position.by === 'cursor' ? pending.positionAt : position.at
    const { count, newestAt } = pending
    // A position whose change row is gone (pruned, or the start of the log) is measured from
    // the first change still pending.
    const from = positionAt ?? pending.firstAt
    const lagSeconds = count > 0 && newestAt !== null && from !== null ? Math.max(0, (newestAt - from) / 1000) : 0
    return {
      ...toCheckpoint(row),
      pendingChanges: count,
      lagSeconds,
      positionBy,
      positionAt: iso(positionAt),
      newestChangeAt: iso(newestAt),
      cursorExpired: row.cursor_seq !== null && Number(row.cursor_seq) < prunedThrough,
    }
  }
}
