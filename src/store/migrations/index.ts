// Versioned migrations, applied in order and recorded in `migrations`. Each part of the
// system adds its tables as a new numbered file here; applied files are never edited, and
// a migration never imports src/resources/ (it writes the tables it creates literally):
// resource families' tables follow their declarations through schema reconciliation
// (../schema-reconcile.ts), which runs after the migrations.
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
import { schemaSteps } from './011-schema-steps.js'
import { jobs } from './012-jobs.js'
import { attemptsAndMetricBuckets } from './013-attempts-and-metric-buckets.js'
import { adminTokens } from './014-admin-tokens.js'
import { mcpSessions } from './015-mcp-sessions.js'
import type { Migration } from './migration.js'
import { changeOrigin } from './016-change-origin.js'
import { oauth } from './017-oauth.js'
import { controlRoundTrips } from './018-control-round-trips.js'

export const migrations: readonly Migration[] = [contentStore, credentials, webhooks, syncState, opsIncidents, controlPlane, panelSessions, approvalReviewedState, schemaSteps, jobs, attemptsAndMetricBuckets, adminTokens, mcpSessions, changeOrigin, oauth, controlRoundTrips]

export interface MigrationResult {
  readonly name: string
  readonly status: 'applied' | 'already-applied'
}

/** Lock key of schema changes (migrations and schema steps): one process changes the schema at a time. */
export const SCHEMA_LOCK = 7270001

/** Applies pending migrations in one transaction each; safe to run from several processes. */
export function migrate(database: Database): Promise<MigrationResult[]> {
  return runMigrations(database, migrations)
}

/** Applies those of `list` not yet applied, in order (tests build older schemas with a prefix). */
export async function runMigrations(database: Database, list: readonly Migration[]): Promise<MigrationResult[]> {
  // Every start after the first finds them all recorded: one read then, instead of a
  // transaction per migration under the schema lock (on PostgreSQL some eighty round trips
  // and 40-70 ms of the process's CPU). A record is only written by its migration's commit,
  // so a name read here is applied; anything missing goes through the locked path below.
  const recorded = await recordedMigrations(database)
  if (recorded && list.every((m) => recorded.has(m.name))) return list.map((m) => ({ name: m.name, status: 'already-applied' }))
  const results: MigrationResult[] = []
  for (const m of list) {
    const applied = await database.db.transaction().execute((trx) => applyMigration(trx, database.adapter, m))
    results.push({ name: m.name, status: applied ? 'applied' : 'already-applied' })
  }
  return results
}

/** Inside a transaction: applies `m` unless recorded; true when it ran. */
export async function applyMigration(trx: Db, adapter: DialectAdapter, m: Migration): Promise<boolean> {
  // One migrator at a time across processes.
  await adapter.transactionLock(trx, SCHEMA_LOCK)
  await sql.raw(`CREATE TABLE IF NOT EXISTS migrations (name text PRIMARY KEY, applied_at ${adapter.bigintType} NOT NULL)`).execute(trx)
  const done = await trx.selectFrom('migrations').select('name').where('name', '=', m.name).executeTakeFirst()
  if (done) return false
  await m.up(trx, adapter)
  await trx.insertInto('migrations').values({ name: m.name, applied_at: Date.now() }).execute()
  return true
}

/** Names of migrations not yet applied (readiness uses this). */
export async function pendingMigrations(database: Database): Promise<string[]> {
  const done = await recordedMigrations(database)
  return migrations.map((m) => m.name).filter((n) => !done?.has(n))
}

/** The names recorded in `migrations`, or undefined when it cannot be read (not created yet). */
async function recordedMigrations(database: Database): Promise<Set<string> | undefined> {
  try {
    const rows = await database.db.selectFrom('migrations').select('name').execute()
    return new Set(rows.map((r) => r.name as string))
  } catch {
    return undefined
  }
}
