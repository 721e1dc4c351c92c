// The feed's position and retention as a follower needs them: where to start following after
// a full copy (GET /changes/position, taken before the copy), and what an expired position
// answers. One wording of the reset procedure, used by every 410 (feed cursor, `after`).
import { ApiError } from '../kernel/errors.js'
import { readFeedBounds } from '../store/feed-position.js'
import type { ReadContext } from './read-context.js'

export interface FeedPosition {
  /** The newest position: follow with `/changes?after=<position>` once the copy is done. */
  readonly position: number
  /** The oldest position to resume from (every change after it is kept): a cursor or `after` before it answers 410 CURSOR_EXPIRED. */
  readonly oldestPosition: number
  readonly retentionDays: number
}

export async function feedPosition(ctx: Pick<ReadContext, 'database' | 'settings'>): Promise<FeedPosition> {
  const b = await readFeedBounds(ctx.database.db)
  return { position: b.newest, oldestPosition: b.oldest, retentionDays: ctx.settings.changesRetentionDays }
}

export const RESET_PROCEDURE = 'reset: take GET /changes/position, copy every record again (every status your credential may read), then follow /changes?after=<that position>'

/** 410 for a position pruning has removed (`param` names the cursor or `after`). */
export function positionExpired(param: string, position: number, oldest: number, retentionDays: number): ApiError {
  return new ApiError('CURSOR_EXPIRED',
    `The ${param} points at position ${position}, before the change log's retention of ${retentionDays} days; the oldest position to resume from is ${oldest}. To ${RESET_PROCEDURE.replace('reset: ', 'reset, ')}`,
    [{ param, problem: `position ${position} is older than the oldest position to resume from (${oldest})` }])
}
