// `gatehouse migrate`: applies pending migrations and lists each with what happened.
import type { Command } from 'commander'
import { openStore } from './context.js'
import { printJson, printTable } from './output.js'

export function registerMigrate(program: Command): void {
  program.command('migrate')
    .description('apply pending database migrations (also done by serve and start)')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { json?: boolean }) => {
      const store = await openStore()
      await store.close()
      if (opts.json) return printJson(store.migrations)
      printTable(['MIGRATION', 'STATUS'], store.migrations.map((m) => [m.name, m.status === 'applied' ? 'applied now' : 'already applied']))
    })
}
