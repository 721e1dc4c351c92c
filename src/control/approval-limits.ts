// Pending approvals per credential are capped: each is a row, a list entry for deciders and an
// expiry to run, and a client requesting in a loop would grow them without bound. At the limit
// a request is a 409 naming it until decisions or expiries bring the count down. The count is
// read before the request's transaction, so requests racing at the limit may pass it by a few.
import { ApiError } from '../kernel/errors.js'
import type { Db } from '../store/database.js'
import type { Actor } from './actor.js'

export const PENDING_APPROVALS_PER_CREDENTIAL = 100

export async function checkPendingApprovals(db: Db, requester: Actor, now = Date.now()): Promise<void> {
  if (requester.type !== 'credential') return
  const row = await db.selectFrom('control_approvals').select((eb) => eb.fn.countAll().as('n'))
    .where('requester_type', '=', 'credential').where('requester_id', '=', requester.id)
    .where('status', '=', 'pending').where('expires_at', '>', now).executeTakeFirstOrThrow()
  if (Number(row.n) >= PENDING_APPROVALS_PER_CREDENTIAL) {
    throw new ApiError('CONFLICT', `This credential has ${Number(row.n)} pending approvals; at most ${PENDING_APPROVALS_PER_CREDENTIAL} may be pending per credential: wait until some are decided or expire`)
  }
}
