// Test harness: a real server on a real database (SQLite file or a fresh PostgreSQL
// schema), with helpers to issue tokens and call the API.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { pino } from 'pino'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { buildApp, type GatehouseApp } from '../../src/compose/app.js'
import { loadDotEnv, loadSettings, type Settings } from '../../src/kernel/settings.js'
import { openDatabase, type Database, type DialectName } from '../../src/store/database.js'
import { migrateSchema } from '../../src/store/schema-reconcile.js'
import { copyPostgresTemplate, copySqliteTemplate } from './migrated-template.js'
import { createSchema, dropSchema, keepOrDrop, takeKeptSchema } from './postgres-schemas.js'
import { openapiDocument } from '../../src/contract/openapi.js'
import { responseContractFor, watchResponses, type ResponseContract } from './response-contract.js'
import type { WorkerOptions } from '../../src/webhooks/delivery-worker.js'
import { defaultRegistry, type ResourceRegistry } from '../../src/resources/index.js'
import type { ProviderTimings } from '../../src/providers/provider-registry.js'

export const PG_URL = process.env.GATEHOUSE_TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/test'

let pgAvailable: boolean | undefined

async function postgresReachable(): Promise<boolean> {
  if (pgAvailable !== undefined) return pgAvailable
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 10_000 })
  try {
    await client.connect()
    await client.query('select 1')
    pgAvailable = true
  } catch (err) {
    if (process.env.GATEHOUSE_REQUIRE_POSTGRES === '1') throw new Error(`PostgreSQL required but unreachable at ${PG_URL}: ${String(err)}`)
    pgAvailable = false
  } finally {
    await client.end().catch(() => {})
  }
  return pgAvailable
}

let noticeShown = false

/**
 * Dialects to run storage tests on: both, narrowed by GATEHOUSE_TEST_DIALECTS=sqlite|postgres.
 * Name each test in the loop `${dialect}: …`. `npm test` (scripts/run-tests.mjs) checks
 * PostgreSQL once and passes what it found in GATEHOUSE_TEST_POSTGRES: `reachable`, or `skip`
 * when it is unreachable and has node:test report the `postgres: …` tests as skipped (so they
 * are still registered here). Run any other way, each process checks, and an unreachable
 * dialect is left out with one notice line on stderr, never silently.
 */
export async function testDialects(): Promise<DialectName[]> {
  const wanted = (process.env.GATEHOUSE_TEST_DIALECTS ?? 'sqlite,postgres').split(',') as DialectName[]
  const out: DialectName[] = []
  if (wanted.includes('sqlite')) out.push('sqlite')
  if (wanted.includes('postgres')) {
    if (['skip', 'reachable'].includes(process.env.GATEHOUSE_TEST_POSTGRES ?? '') || (await postgresReachable())) out.push('postgres')
    else if (!noticeShown) {
      noticeShown = true
      process.stderr.write(`notice: PostgreSQL unreachable at ${PG_URL}: PostgreSQL tests of this file are left out (npm test reports them as skipped)\n`)
    }
  }
  return out
}

export interface TestDatabase extends Database {
  readonly url: string
  readonly schema?: string
  /** Drops the database (schema or file). */
  destroy(): Promise<void>
}

/**
 * A fresh, migrated database: a copy of one migrated once per run (migrated-template.ts), as
 * a served database is prepared (migrations, then the declarations' schema steps). On
 * PostgreSQL it may be a schema an earlier test of this process used, emptied, whose catalog
 * still matched the copy's (postgres-schemas.ts); it is kept again after this test only if
 * the test never read its `schema`.
 */
export async function testDatabase(dialect: DialectName, opts: { poolSize?: number; busyTimeoutMs?: number } = {}): Promise<TestDatabase> {
  if (dialect === 'sqlite') return sqliteDatabase(copySqliteTemplate, opts.busyTimeoutMs)
  const reused = takeKeptSchema(PG_URL)
  if (reused !== undefined) return postgresDatabase(reused, opts, true)
  const schema = newSchemaName()
  await createSchema(PG_URL, schema)
  const database = postgresDatabase(schema, opts, true)
  if (!(await copyPostgresTemplate(PG_URL, schema))) await migrateSchema(database, defaultRegistry.all)
  return database
}

/** A fresh database with no table at all (tests that build an older schema themselves). */
export async function emptyTestDatabase(dialect: DialectName, opts: { poolSize?: number } = {}): Promise<TestDatabase> {
  if (dialect === 'sqlite') return sqliteDatabase(async () => {})
  const schema = newSchemaName()
  await createSchema(PG_URL, schema)
  return postgresDatabase(schema, opts, false)
}

const newSchemaName = () => `t_${randomBytes(6).toString('hex')}`

/**
 * The database of a PostgreSQL test schema. `reusable`: filled from the template, so it may
 * be emptied and kept at the end instead of dropped, unless its name was read (`schema`).
 */
function postgresDatabase(schema: string, opts: { poolSize?: number }, reusable: boolean): TestDatabase {
  // 30 s to connect, not the served default of 5 s: on a machine loaded with other suites
  // PostgreSQL took longer than 5 s to accept a connection. Tests of the connect timeout
  // open their own database with their own.
  const database = openDatabase(PG_URL, { schema, poolSize: opts.poolSize, connectTimeoutMs: 30_000 })
  let nameShown = false
  let destroyed = false
  return {
    ...database,
    url: PG_URL,
    get schema() {
      nameShown = true
      return schema
    },
    destroy: async () => {
      if (destroyed) return
      destroyed = true
      await database.close().catch(() => {})
      if (reusable && !nameShown) await keepOrDrop(PG_URL, schema)
      else await dropSchema(PG_URL, schema)
    },
  }
}

/** A SQLite database in a directory of its own, `fill`ed before it is opened. */
async function sqliteDatabase(fill: (file: string) => Promise<void>, busyTimeoutMs?: number): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-test-'))
  const file = join(dir, 'test.db')
  await fill(file)
  const url = `sqlite:${file}`
  const database = openDatabase(url, { busyTimeoutMs })
  return { ...database, url, destroy: async () => { await database.close().catch(() => {}); rmSync(dir, { recursive: true, force: true }) } }
}

export interface TestApp extends GatehouseApp {
  readonly database: TestDatabase
  /** Creates a managed credential and returns its token. */
  issueToken(scopes: readonly string[], extra?: Record<string, unknown>): Promise<string>
  get(url: string, token?: string, headers?: Record<string, string>): Promise<TestResponse>
  post(url: string, body: unknown, token?: string, headers?: Record<string, string>): Promise<TestResponse>
  /** Every route Fastify registered (method and URL), collected by an onRoute hook. */
  readonly registeredRoutes: readonly RegisteredRoute[]
  /**
   * Machine-API answers that did not match the OpenAPI document for their route and status.
   * Every answer is checked; close() throws when any is listed (a test that provokes one on
   * purpose empties the list after asserting on it).
   */
  readonly contractViolations: string[]
}

export interface RegisteredRoute {
  readonly method: string
  readonly url: string
  /** The scope a machine-API route enforces (undefined for other routes). */
  readonly scope?: string
}

export interface TestResponse {
  readonly statusCode: number
  readonly headers: Record<string, string | string[] | number | undefined>
  readonly body: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json(): any
}

/** `dotEnv`: a `.env` file read as the CLI reads one (its values fill what `env` leaves unset). */
export function testSettings(env: Record<string, string> = {}, dotEnv?: string): Settings {
  const all: Record<string, string | undefined> = { PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '0', PLUGIN_GATEHOUSE_LOG_LEVEL: 'silent', ...env }
  const fromDotEnv = dotEnv === undefined ? undefined : loadDotEnv(dotEnv, all)
  return loadSettings(all, { fromDotEnv })
}

/**
 * `webhookWorker`: the in-process delivery worker is off in tests unless asked for (true or
 * options), so a test that sets a webhook URL never sends anything it did not mean to.
 */
export async function buildTestApp(opts: { dialect: DialectName; env?: Record<string, string>; dotEnv?: string; database?: TestDatabase; webhookWorker?: boolean | WorkerOptions; resources?: ResourceRegistry; providers?: ProviderTimings }): Promise<TestApp> {
  const database = opts.database ?? (await testDatabase(opts.dialect))
  const settings = testSettings({ PLUGIN_GATEHOUSE_DATABASE_URL: database.url, ...opts.env }, opts.dotEnv)
  const registeredRoutes: RegisteredRoute[] = []
  const contractViolations: string[] = []
  let contract: ResponseContract | undefined
  // Collects every registered route, and checks every machine-API answer against the
  // published OpenAPI document (see response-contract.ts).
  const instrument = (app: FastifyInstance) => {
    app.addHook('onRoute', (r) => {
      const scope = (r.config as { machineRoute?: { scope: string } } | undefined)?.machineRoute?.scope
      for (const method of [r.method].flat()) registeredRoutes.push({ method, url: r.url, scope })
    })
    watchResponses(app, () => (contract ??= responseContractFor(openapiDocument(built.routes, settings))), (p) => contractViolations.push(p))
  }
  let built: GatehouseApp
  try {
    built = await buildApp({ settings, database, logger: pino({ level: 'silent' }), instrument, webhookWorker: opts.webhookWorker ?? false, resources: opts.resources, providers: opts.providers })
  } catch (err) {
    // Start-up refused (a provider that cannot load): the database is still ours to drop.
    if (!opts.database) await database.destroy()
    throw err
  }
  const inject = async (method: 'GET' | 'POST', url: string, body: unknown, token?: string, headers: Record<string, string> = {}) => {
    const res = await built.app.inject({
      method, url,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    return { statusCode: res.statusCode, headers: res.headers, body: res.body, json: () => JSON.parse(res.body) }
  }
  return {
    ...built,
    database,
    async issueToken(scopes, extra = {}) {
      const { token } = await built.services.credentials.create({ label: `test ${scopes.join(' ')}`.slice(0, 200), scopes, ...extra })
      return token
    },
    get: (url, token, headers) => inject('GET', url, undefined, token, headers),
    post: (url, body, token, headers) => inject('POST', url, body, token, headers),
    registeredRoutes,
    contractViolations,
    async close() {
      await built.close()
      if (!opts.database) await database.destroy()
      if (contractViolations.length > 0) {
        throw new Error(`${contractViolations.length} machine-API answer(s) did not match the OpenAPI document:\n  ${contractViolations.slice(0, 10).join('\n  ')}`)
      }
    },
  }
}
