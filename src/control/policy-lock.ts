// Policy writes take turns. Whether a change relaxes control depends on every stored policy
// (policy-relaxation.ts), so it is judged inside the transaction that writes it, after this
// lock, against the policies as they are then: two changes that are harmless one at a time
// but relax control together cannot both be judged against the state before either.
// PostgreSQL: a transaction-scoped advisory lock (taken before the audit head's row lock, as
// every policy write does, so the order is always policy lock → audit head). SQLite: write
// transactions begin IMMEDIATE, holding the database's write lock, so they already take turns.
import type { Database, Db } from '../store/database.js'

/** The advisory lock key of policy writes (next to SCHEMA_LOCK 7270001 and CHANGE_LOG_LOCK 7270002). */
export const POLICY_LOCK = 7270003

export function lockPolicies(database: Database, tx: Db): Promise<void> {
  return database.adapter.transactionLock(tx, POLICY_LOCK)
}
