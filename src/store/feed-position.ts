// Positions in the change feed. A change's position is its sequence number in the change
// log; "resume from P" means "the changes after P". Appends are commit-ordered (change-log.ts),
// so once position P is visible every change up to P is committed: a follower that starts
// after the newest position it saw misses nothing.
import type { Db } from './database.js'
import { getMeta } from './meta.js'
import { PRUNED_THROUGH_KEY } from './change-log.js'

export interface FeedBounds {
  /** The newest position in the log (the pruned-through position when the log is empty). */
  readonly newest: number
  /** The oldest position a follower can still resume from: pruning removed everything up to it. */
  readonly oldest: number
}

export async function readFeedBounds(db: Db): Promise<FeedBounds> {
  const oldest = Number((await getMeta(db, PRUNED_THROUGH_KEY)) ?? 0)
  const row = await db.selectFrom('change_log').select((eb) => eb.fn.max('seq').as('max')).executeTakeFirst()
  const max = row?.max === null || row?.max === undefined ? 0 : Number(row.max)
  return { newest: Math.max(max, oldest), oldest }
}
