// PostgreSQL's side of a write transaction: row and advisory locks, ids from the table's
// sequence, NOTIFY at commit, and the extensions and function the search indexes need.
import { sql } from 'kysely'
import type { DialectTransactions } from '../dialect-adapter.js'
import { sqlName } from '../../sql-quote.js'
import { CHANNEL_PREFIX } from './listen.js'
import { ensureSearchDocument } from './readable-document.js'

export const postgresTransactions: DialectTransactions = {
  skipLocked: sql`FOR UPDATE SKIP LOCKED`,
  async transactionLock(tx, key) {
    await sql`SELECT pg_advisory_xact_lock(${key})`.execute(tx)
  },
  async allocateIds(tx, table, n) {
    const { rows } = await sql<{ id: number }>`SELECT nextval(pg_get_serial_sequence(${table}, 'id'))::bigint AS id FROM generate_series(1, ${n})`.execute(tx)
    return rows.map((x) => Number(x.id))
  },
  // Delivered at commit to every process listening on this schema's channel.
  async notifyChange(tx, payload) {
    await sql`SELECT pg_notify(${CHANNEL_PREFIX} || current_schema(), ${payload})`.execute(tx)
  },
  async ensureExtension(tx, name) {
    const where = async () => (await sql<{ schema: string }>`SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = ${name}`.execute(tx)).rows[0]?.schema
    const found = await where()
    if (found !== undefined) return found
    const { rows } = await sql<{ schema: string }>`SELECT COALESCE((SELECT nspname FROM pg_namespace WHERE nspname = 'public'), current_schema()) AS schema`.execute(tx)
    try {
      await sql.raw(`CREATE EXTENSION IF NOT EXISTS ${name} SCHEMA ${sqlName(rows[0].schema)}`).execute(tx)
    } catch (err) {
      throw new Error(`the PostgreSQL extension ${name} is needed for search indexes and could not be created (${(err as Error).message}); have a superuser run CREATE EXTENSION ${name} in this database`, { cause: err })
    }
    return where()
  },
  ensureSearchDocument,
}
