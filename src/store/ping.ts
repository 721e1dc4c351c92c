// One round trip to the database, for readiness and diagnostics: the store's statement, so no
// other layer writes SQL.
import { sql } from 'kysely'
import type { Db } from './database.js'

export async function pingDatabase(db: Db): Promise<void> {
  await sql`SELECT 1`.execute(db)
}
