// `gatehouse migrate`: applies pending migrations, then the schema steps that bring each
// resource family's table in line with its declaration, and lists what happened.
// `--dry-run` lists the same without changing anything.
import type { Command } from 'commander'
import { defaultRegistry } from '../resources/index.js'
import { migrateSchema, type SchemaMigrationReport } from '../store/schema-reconcile.js'
import { CliError } from './cli-error.js'
import { openStore } from './context.js'
import { formatCount, printJson, printTable } from './output.js'

interface MigrateOptions {
  readonly json?: boolean
  readonly dryRun?: boolean
  readonly dropRemoved?: boolean
}

const migrationStatus = { applied: 'applied now', 'already-applied': 'already applied', pending: 'pending' } as const

export function registerMigrate(program: Command): void {
  program.command('migrate')
    .description('apply pending database migrations and schema steps (also done by serve and start)')
    .option('--dry-run', 'list pending migrations and schema steps without changing anything')
    .option('--drop-removed', 'drop columns a resource declaration no longer has (their values stay in the stored documents)')
    .option('--json', 'print the result as JSON')
    .action(async (opts: MigrateOptions) => {
      const store = await openStore({ migrate: false })
      let report: SchemaMigrationReport
      try {
        report = await migrateSchema(store.database, defaultRegistry.all, {
          dryRun: opts.dryRun, dropRemoved: opts.dropRemoved,
          // Filling a new column can take a while on a large table: say what is done as it is.
          // A step that filled no rows (every step on a fresh database) was quick; the table
          // below lists it, and listing it here too would print each step twice.
          onStep: opts.json ? undefined : (s) => {
            if (s.rowsFilled) process.stderr.write(`schema step applied: ${s.description} (${formatCount(s.rowsFilled)} rows filled)\n`)
          },
        })
      } finally {
        await store.close()
      }
      if (opts.json) printJson(report)
      else printReport(report)
      if (report.problems.length > 0) {
        throw new CliError(`--dry-run: gatehouse migrate would stop on ${report.problems.length} schema problem(s) listed above`)
      }
    })
}

function printReport(report: SchemaMigrationReport): void {
  printTable(['MIGRATION', 'STATUS'], report.migrations.map((m) => [m.name, migrationStatus[m.status]]))
  process.stdout.write('\n')
  if (report.schemaSteps.length === 0) {
    process.stdout.write(report.dryRun ? 'schema: no steps needed\n' : 'schema: matches the resource declarations\n')
  } else {
    printTable(['SCHEMA STEP', 'FAMILY', 'STATUS', 'WHAT'], report.schemaSteps.map((s) => [
      s.kind, s.resourceType, s.status === 'pending' ? 'pending' : 'applied now', s.description,
    ]))
  }
  if (report.problems.length > 0) {
    process.stdout.write(`\nproblems (gatehouse migrate would stop; nothing is changed):\n${report.problems.map((p) => `  - ${p.message}\n`).join('')}`)
  }
}
