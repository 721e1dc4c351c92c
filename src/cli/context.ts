// What a CLI command runs with: settings from the environment (and `.env`), the database
// they name, migrated, and the same services the server builds, so a write from the CLI
// goes through the write service, the change log and the webhook outbox like any other.
import { pino } from 'pino'
import { loadDotEnv, loadSettings, type Settings } from '../kernel/settings.js'
import { openDatabase, type Database } from '../store/database.js'
import { migrateSchema, type SchemaMigrationReport } from '../store/schema-reconcile.js'
import { defaultRegistry } from '../resources/index.js'
import { createServices } from '../compose/services.js'
import { type Services } from '../operations/services.js'

export function loadCliSettings(): Settings {
  loadDotEnv()
  return loadSettings()
}

export interface CliStore {
  readonly settings: Settings
  readonly database: Database
  /** Migrations and schema steps applied on open (empty when `migrate: false`). */
  readonly migrations: SchemaMigrationReport['migrations']
  readonly schemaSteps: SchemaMigrationReport['schemaSteps']
  close(): Promise<void>
}

/** Opens the configured database; applies pending migrations and schema steps unless told not to. */
export async function openStore(opts: { migrate?: boolean; settings?: Settings } = {}): Promise<CliStore> {
  const settings = opts.settings ?? loadCliSettings()
  const database = openDatabase(settings.databaseUrl)
  try {
    const report = opts.migrate === false ? undefined : await migrateSchema(database, defaultRegistry.all)
    return { settings, database, migrations: report?.migrations ?? [], schemaSteps: report?.schemaSteps ?? [], close: () => database.close() }
  } catch (err) {
    await database.close().catch(() => {})
    throw err
  }
}

export interface CliServices extends CliStore {
  readonly services: Services
}

export async function openServices(opts: { settings?: Settings } = {}): Promise<CliServices> {
  const store = await openStore(opts)
  // Commands report through stdout and stderr themselves; the logger only speaks up for trouble.
  const logger = pino({ level: 'warn' }, pino.destination(2))
  const services = await createServices(store.settings, store.database, logger)
  return {
    ...store,
    services,
    async close() {
      await services.credentials.close().catch(() => {})
      await services.metricBuckets.close().catch(() => {})
      await services.rateLimiter.close().catch(() => {})
      await store.close()
    },
  }
}

/** Runs `fn` with services and always closes them. */
export async function withServices<T>(fn: (ctx: CliServices) => Promise<T>, opts: { settings?: Settings } = {}): Promise<T> {
  const ctx = await openServices(opts)
  try {
    return await fn(ctx)
  } finally {
    await ctx.close()
  }
}
