// Single use of approval round-trip request states, across processes. The state itself is
// signed and carries its own expiry (src/mcp/approval-round-trip.ts); what a signature cannot
// say is whether the state was already presented. `use` records the state's id, and the
// primary key refuses a second record, so of two retries racing on two processes exactly one
// gets through. Expired rows are swept on the way: an expired state is refused by its
// signature check before it gets here, so its row is no longer needed.
import type { Database } from '../store/database.js'

export interface RoundTripUse {
  readonly stateId: string
  readonly approvalId: string
  readonly credentialId: string
  readonly expiresAt: number
}

export class RoundTripUses {
  constructor(private readonly database: Database) {}

  /** Records the first use of a state; false when it was used before. */
  async use(u: RoundTripUse, now = Date.now()): Promise<boolean> {
    const { db, adapter } = this.database
    await db.deleteFrom('control_round_trip_uses').where('expires_at', '<', now).execute()
    try {
      await db.insertInto('control_round_trip_uses').values({
        state_id: u.stateId, approval_id: u.approvalId, credential_id: u.credentialId, expires_at: u.expiresAt, used_at: now,
      }).execute()
      return true
    } catch (err) {
      if (adapter.isUniqueViolation(err)) return false
      throw err
    }
  }
}
