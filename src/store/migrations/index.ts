// Versioned migrations, applied in order and recorded in `migrations`. Each part of the
// system adds its tables as a new numbered file here; applied files are never edited.
import { sql } from 'kysely'
import type { Database, Db, DialectAdapter } from '../database.js'
import { contentStore } from './001-content-store.js'
import { credentials } from './002-credentials.js'
import { webhooks } from './003-webhooks.js'
import { syncState } from './004-sync-state.js'
import { opsIncidents } from './007-ops-incidents.js'
import { controlPlane } from './008-control-plane.js'
import { panelSessions } from './009-panel-sessions.js'
import { approvalReviewedState } from './010-approval-reviewed-state.js'

export interface Migration {
  readonly name: string
  up(db: Db, adapter: DialectAdapter): Promise<void>
}

export const migrations: readonly Migration[] = [contentStore, credentials, webhooks, syncState, opsIncidents, controlPlane, panelSessions, approvalReviewedState]

export interface MigrationResult {
  readonly name: string
  readonly status: 'applied' | 'already-applied'
}

/** Applies pending migrations in one transaction each; safe to run from several processes. */
export async function migrate(database: Database): Promise<MigrationResult[]> {
  const { db, adapter } = database
  await sql.raw(`CREATE TABLE IF NOT EXISTS migrations (name text PRIMARY KEY, applied_at ${adapter.bigintType} NOT NULL)`).execute(db)
  const results: MigrationResult[] = []
  for (const m of migrations) {
    const applied = await db.transaction().execute(async (trx) => {
      // PostgreSQL: one migrator at a time across processes.
      await adapter.transactionLock(trx, 7270001)
      const done = await trx.selectFrom('migrations').select('name').where('name', '=', m.name).executeTakeFirst()
      if (done) return false
      await m.up(trx, adapter)
      await trx.insertInto('migrations').values({ name: m.name, applied_at: Date.now() }).execute()
      return true
    })
    results.push({ name: m.name, status: applied ? 'applied' : 'already-applied' })
  }
  return results
}

/** Names of migrations not yet applied (readiness uses this). */
export async function pendingMigrations(database: Database): Promise<string[]> {
  try {
    const rows = await database.db.selectFrom('migrations').select('name').execute()
    const done = new Set(rows.map((r) => r.name as string))
    return migrations.map((m) => m.name).filter((n) => !done.has(n))
  } catch {
    return migrations.map((m) => m.name)
  }
}
