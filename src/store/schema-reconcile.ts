// Schema reconciliation: after the numbered migrations, each resource declaration gets the
// table it calls for. Missing tables, columns and indexes are created, each change in its
// own transaction with a row in `schema_steps`; a new column is filled from the stored
// documents in the same step, so queries on it are right from the moment it exists. What
// would lose or rewrite data (a column no longer declared, a column of another type) stops
// everything before any change, with messages saying what the operator must do.
//
// Takes the resources as a parameter (it never reads a registry itself), so a test can add a
// family of its own and a caller decides which declarations the database must follow.
import { sql } from 'kysely'
import type { Resource } from '../resources/declare.js'
import type { Doc } from '../resources/hooks.js'
import type { Database, Db, DialectAdapter } from './database.js'
import { addColumnSql, createIndexSql, createTableSql, createTermsTableSql, dropColumnSql, dropIndexSql, indexStatisticsSql, type DeclaredColumn } from './declared-schema.js'
import { columnValue } from './documents.js'
import { insertTerms } from './record-terms.js'
import { applyMigration, migrate, migrations, SCHEMA_LOCK, type MigrationResult } from './migrations/index.js'
import { sqlName } from './sql-quote.js'
import { planSchema, type PlanOptions, type SchemaPlan, type SchemaProblem, type SchemaStep, type SchemaStepKind } from './schema-plan.js'

export interface SchemaStepResult {
  readonly resourceType: string
  readonly kind: SchemaStepKind
  readonly target: string
  readonly description: string
  /** `pending` in a dry run. */
  readonly status: 'applied' | 'pending'
  /** Rows whose new column was filled from their documents. */
  readonly rowsFilled: number
}

/** Reconciliation stopped before changing anything: `problems` say what and what to do. */
export class SchemaMismatchError extends Error {
  constructor(readonly problems: readonly SchemaProblem[]) {
    super(`the database does not match the resource declarations; schema reconciliation changed nothing:\n${problems.map((p) => `  - ${p.message}`).join('\n')}`)
    this.name = 'SchemaMismatchError'
  }
}

/** A schema step failed (a unique index over records that share values); it was rolled back. */
export class SchemaStepError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'SchemaStepError'
  }
}

export interface ReconcileOptions extends PlanOptions {
  /** Called after each step commits (the CLI prints progress). */
  readonly onStep?: (step: SchemaStepResult) => void
}

/** What reconciliation would do now (readiness, diagnostics): read-only. */
export async function schemaPlan(database: Database, resources: readonly Resource[], opts: PlanOptions = {}): Promise<SchemaPlan> {
  return planIn(database.db, database.adapter, resources, opts)
}

async function planIn(db: Db, adapter: DialectAdapter, resources: readonly Resource[], opts: PlanOptions, only?: readonly string[]): Promise<SchemaPlan> {
  return planSchema(await adapter.describeTables(db, only), resources, adapter, opts)
}

/** The tables a step's family plans from: its table and its terms table. */
const tablesOf = (step: SchemaStep) => [step.table.name, ...(step.table.terms ? [step.table.terms.name] : [])]

/**
 * Brings the database to the declarations. Each step runs in a transaction holding the
 * schema lock and is planned again inside it (its family only: a fresh database has some
 * sixty steps, and describing every table for each cost 1.4 s), so processes starting
 * together apply it once. The whole plan is made again at the end, for steps that only
 * became possible (none today) or that another process left.
 */
export async function reconcileSchema(database: Database, resources: readonly Resource[], opts: ReconcileOptions = {}): Promise<SchemaStepResult[]> {
  const { db, adapter } = database
  // Planned under the schema lock: another process's step (columns, then indexes) never
  // commits between the plan's reads, which would show a table with indexes but no columns.
  const first = await db.transaction().execute(async (trx) => {
    await adapter.transactionLock(trx, SCHEMA_LOCK)
    return planIn(trx, adapter, resources, opts)
  })
  if (first.problems.length > 0) throw new SchemaMismatchError(first.problems)
  const results: SchemaStepResult[] = []
  const done = new Set<string>()
  const keyOf = (step: SchemaStep) => `${step.kind} ${step.target}`
  for (let planned = first.steps; planned.length > 0;) {
    for (const candidate of planned) {
      const result = await db.transaction().execute(async (trx) => {
        await adapter.transactionLock(trx, SCHEMA_LOCK)
        const plan = await planIn(trx, adapter, [candidate.table.resource], opts, tablesOf(candidate))
        if (plan.problems.length > 0) throw new SchemaMismatchError(plan.problems)
        const step = plan.steps.find((s) => keyOf(s) === keyOf(candidate))
        if (!step) return undefined // another process applied it
        // A step that is still planned after it ran would loop for ever: the database is not
        // reporting what the step did.
        if (done.has(keyOf(step))) throw new SchemaStepError(`${step.resourceType}: schema step "${step.description}" ran but the database still lacks it`)
        const rowsFilled = await applyStep(trx, adapter, step)
        await trx.insertInto('schema_steps').values({
          resource_type: step.resourceType, kind: step.kind, target: step.target, description: step.description,
          rows_filled: rowsFilled, applied_at: Date.now(),
        }).execute()
        return { step, rowsFilled }
      })
      if (!result) continue
      done.add(keyOf(result.step))
      const applied = resultOf(result.step, 'applied', result.rowsFilled)
      results.push(applied)
      opts.onStep?.(applied)
    }
    const again = await planIn(db, adapter, resources, opts)
    if (again.problems.length > 0) throw new SchemaMismatchError(again.problems)
    const stuck = again.steps.find((s) => done.has(keyOf(s)))
    if (stuck) throw new SchemaStepError(`${stuck.resourceType}: schema step "${stuck.description}" ran but the database still lacks it`)
    planned = again.steps
  }
  return results
}

export interface SchemaMigrationReport {
  readonly dryRun: boolean
  /** Every migration: `applied` now, `already-applied`, or `pending` (dry run). */
  readonly migrations: readonly { readonly name: string; readonly status: MigrationResult['status'] | 'pending' }[]
  readonly schemaSteps: readonly SchemaStepResult[]
  /** Dry run only: what would stop reconciliation (a real run throws SchemaMismatchError). */
  readonly problems: readonly SchemaProblem[]
}

/** `gatehouse migrate` and start-up: the numbered migrations, then reconciliation. */
export async function migrateSchema(database: Database, resources: readonly Resource[], opts: ReconcileOptions & { readonly dryRun?: boolean } = {}): Promise<SchemaMigrationReport> {
  if (opts.dryRun) return dryRun(database, resources, opts)
  const applied = await migrate(database)
  const schemaSteps = await reconcileSchema(database, resources, opts)
  return { dryRun: false, migrations: applied, schemaSteps, problems: [] }
}

class RollBack extends Error {}

/**
 * Runs the pending migrations inside one transaction, plans reconciliation on the result and
 * rolls everything back (both engines have transactional DDL), so the plan is the one a real
 * run would make after migrating, and nothing is changed.
 */
async function dryRun(database: Database, resources: readonly Resource[], opts: PlanOptions): Promise<SchemaMigrationReport> {
  let report: SchemaMigrationReport | undefined
  try {
    await database.db.transaction().execute(async (trx) => {
      const results: SchemaMigrationReport['migrations'][number][] = []
      for (const m of migrations) results.push({ name: m.name, status: (await applyMigration(trx, database.adapter, m)) ? 'pending' : 'already-applied' })
      const plan = await planIn(trx, database.adapter, resources, opts)
      report = { dryRun: true, migrations: results, schemaSteps: plan.steps.map((s) => resultOf(s, 'pending', 0)), problems: plan.problems }
      throw new RollBack()
    })
  } catch (err) {
    if (!(err instanceof RollBack)) throw err
  }
  if (!report) throw new Error('dry run produced no report')
  return report
}

function resultOf(step: SchemaStep, status: SchemaStepResult['status'], rowsFilled: number): SchemaStepResult {
  return { resourceType: step.resourceType, kind: step.kind, target: step.target, description: step.description, status, rowsFilled }
}

async function applyStep(trx: Db, adapter: DialectAdapter, step: SchemaStep): Promise<number> {
  const table = step.terms?.name ?? step.table.name
  for (const name of step.dropIndexes) await sql.raw(dropIndexSql(name)).execute(trx)
  if (step.dropColumn) await sql.raw(dropColumnSql(table, step.dropColumn)).execute(trx)
  if (step.kind === 'create-table') await sql.raw(createTableSql(step.table, adapter)).execute(trx)
  let rowsFilled = 0
  if (step.kind === 'create-terms' && step.terms) await sql.raw(createTermsTableSql(step.terms, adapter)).execute(trx)
  if (step.kind === 'rebuild-terms' && step.terms) await sql.raw(`DELETE FROM ${sqlName(step.terms.name)}`).execute(trx)
  if ((step.kind === 'create-terms' || step.kind === 'rebuild-terms') && step.terms) rowsFilled = await fillTerms(trx, adapter, step.table.resource)
  if (step.column) {
    await sql.raw(addColumnSql(table, step.column)).execute(trx)
    rowsFilled = await fillColumn(trx, adapter, step, step.column)
  }
  for (const index of step.indexes) {
    const extensionSchema = index.extension ? await adapter.ensureExtension(trx, index.extension) : undefined
    if (index.searchDocument) await adapter.ensureSearchDocument(trx)
    try {
      await sql.raw(createIndexSql(table, index, extensionSchema)).execute(trx)
      if (index.statistics !== undefined) await sql.raw(indexStatisticsSql(index)).execute(trx)
    } catch (err) {
      if (!index.unique) throw err
      throw new SchemaStepError(`${step.resourceType}: cannot create unique index ${index.name} on ${table} (${index.columns.join(', ')}): some records share values there. Make them differ (admin API or import), then run gatehouse migrate again`, { cause: err })
    }
  }
  return rowsFilled
}

const FILL_BATCH = 500

/** Writes the terms of every stored record (a new terms table); returns how many records have any. */
async function fillTerms(trx: Db, adapter: DialectAdapter, r: Resource): Promise<number> {
  let filled = 0
  let after = 0
  for (;;) {
    const rows = await trx.selectFrom(r.table).select(['id', 'updated_at', adapter.docText('doc').as('doc')])
      .where('id', '>', after).orderBy('id').limit(FILL_BATCH).execute()
    const records = rows.map((row) => ({ id: Number(row.id), updatedAt: Number(row.updated_at), doc: JSON.parse(row.doc as string) as Doc }))
    filled += await insertTerms(trx, r, records)
    if (rows.length < FILL_BATCH) return filled
    after = Number(rows[rows.length - 1].id)
  }
}

/** Copies each record's property into its new column, as a write would have stored it. */
async function fillColumn(trx: Db, adapter: DialectAdapter, step: SchemaStep, column: DeclaredColumn): Promise<number> {
  const r = step.table.resource
  const declaration = r.columns[column.property]
  let filled = 0
  let after = 0
  for (;;) {
    const rows = await trx.selectFrom(r.table).select(['id', adapter.docText(column.source).as('source')])
      .where('id', '>', after).orderBy('id').limit(FILL_BATCH).execute()
    for (const row of rows) {
      const source = row.source === null ? {} : (JSON.parse(row.source as string) as Record<string, unknown>)
      const value = columnValue(declaration, adapter, source[column.property])
      if (value === null) continue
      await trx.updateTable(r.table).set({ [column.name]: value }).where('id', '=', row.id as number).execute()
      filled++
    }
    if (rows.length < FILL_BATCH) return filled
    after = Number(rows[rows.length - 1].id)
  }
}
