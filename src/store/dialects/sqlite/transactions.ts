// SQLite's side of a write transaction: one writer at a time holds the database's write
// lock from BEGIN (connection.ts), so there is nothing to lock, and no other process to tell.
import { sql } from 'kysely'
import type { DialectTransactions } from '../dialect-adapter.js'

export const sqliteTransactions: DialectTransactions = {
  skipLocked: sql``,
  transactionLock: async () => {},
  async allocateIds(tx, table, n) {
    // One writer at a time, so the next ids are known; sqlite_sequence keeps deleted ids from being reused.
    const { rows } = await sql<{ top: number }>`SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = ${table}), 0), COALESCE((SELECT MAX(id) FROM ${sql.table(table)}), 0)) AS top`.execute(tx)
    const top = Number(rows[0]?.top ?? 0)
    return Array.from({ length: n }, (_, i) => top + 1 + i)
  },
  notifyChange: async () => {},
  ensureExtension: async () => undefined,
  ensureSearchDocument: async () => {},
}
