// How far behind a position in one type's changes is: the change log's owner answers it, so
// sync state (integration/) never reads the log's table itself.
import type { Db } from './database.js'

/** Where a reader stands: after a feed position, or past a time by `updated_at` or `occurred_at`. */
export type LagPosition =
  | { readonly by: 'cursor'; readonly seq: number }
  | { readonly by: 'updatedSince'; readonly at: number }
  | { readonly by: 'checkpointAt'; readonly at: number }

export interface PendingChanges {
  /** Changes of the type after the position. */
  readonly count: number
  /** When the first of them happened (ms), or null when none is pending. */
  readonly firstAt: number | null
  /** When the type's newest change happened (ms), or null when it has none. */
  readonly newestAt: number | null
  /** When the change at a cursor position happened (ms): null when it is gone or not a cursor. */
  readonly positionAt: number | null
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

export async function pendingChanges(db: Db, resourceType: string, position: LagPosition): Promise<PendingChanges> {
  let pendingQ = db.selectFrom('change_log')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('occurred_at').as('first')])
    .where('resource_type', '=', resourceType)
  let positionAt: number | null = null
  if (position.by === 'cursor') {
    pendingQ = pendingQ.where('seq', '>', position.seq)
    const at = await db.selectFrom('change_log').select('occurred_at').where('seq', '=', position.seq).executeTakeFirst()
    positionAt = at ? Number(at.occurred_at) : null
  } else if (position.by === 'updatedSince') {
    pendingQ = pendingQ.where('updated_at', '>', position.at)
  } else {
    pendingQ = pendingQ.where('occurred_at', '>', position.at)
  }
  const pending = await pendingQ.executeTakeFirst()
  const newest = await db.selectFrom('change_log').select((eb) => eb.fn.max('occurred_at').as('at'))
    .where('resource_type', '=', resourceType).executeTakeFirst()
  return { count: Number(pending?.n ?? 0), firstAt: num(pending?.first), newestAt: num(newest?.at), positionAt }
}
