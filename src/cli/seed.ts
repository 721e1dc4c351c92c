// `gatehouse seed --demo [--scale N]`: linked demo data for every family, written through
// the write service, with a progress bar on stderr.
import type { Command } from 'commander'
import { seedDemo } from '../loaders/demo/demo-data.js'
import { CliError } from './cli-error.js'
import { wholeNumber } from './arguments.js'
import { withServices } from './context.js'
import { createProgress } from './progress.js'
import { formatCount, formatSeconds, printJson, printTable } from './output.js'

export function registerSeed(program: Command): void {
  program.command('seed')
    .description('load demo data into an empty store')
    .option('--demo', 'load the demo site: every family, linked, from a seeded generator')
    .option('--scale <n>', 'multiply the counts (1: ~3,000 records; 100: 100,000 entries, 20,000 products)', wholeNumber(1, 1000), 1)
    .option('--seed <n>', 'generator seed; the same seed, scale and day give the same data', wholeNumber(0, 2 ** 32 - 1), 1)
    .option('--json', 'print the counts as JSON')
    .action(async (opts: { demo?: boolean; scale: number; seed: number; json?: boolean }) => {
      if (!opts.demo) throw new CliError('nothing to seed: pass --demo (see gatehouse seed --help)')
      await withServices(async ({ services }) => {
        if (!(await services.store.isEmpty())) {
          throw new CliError('the store already has records; demo data goes into an empty database (point PLUGIN_GATEHOUSE_DATABASE_URL at a new one)')
        }
        const started = Date.now()
        const progress = createProgress('Seeding demo data', { total: 0, estimated: true })
        const result = await seedDemo(services.store, {
          scale: opts.scale, seed: opts.seed, onProgress: (done, total) => progress.update(done, total),
        })
        progress.finish(`${formatCount(result.total)} records`)
        const seconds = (Date.now() - started) / 1000
        if (opts.json) return printJson({ scale: opts.scale, seed: opts.seed, total: result.total, seconds, counts: result.counts })
        printTable(['TYPE', 'RECORDS'], Object.entries(result.counts).map(([type, n]) => [type, formatCount(n)]))
        process.stdout.write(`Seeded ${formatCount(result.total)} records at scale ${opts.scale} in ${formatSeconds(seconds * 1000)}\n`)
      })
    })
}
