// `gatehouse seed --demo [--scale N] [--no-webhooks]`: linked demo data for every family,
// written through the write service, with a progress bar on stderr. `--no-webhooks` seeds a
// store whose webhook is configured without queuing one delivery per demo record (thousands
// of events a receiver never asked for); the change log still records every write.
import type { Command } from 'commander'
import { seedDemo } from '../loaders/demo/demo-data.js'
import { CliError } from './cli-error.js'
import { wholeNumber } from './arguments.js'
import { loadCliSettings, withServices } from './context.js'
import { createProgress } from './progress.js'
import { formatCount, formatSeconds, printJson, printTable } from './output.js'

export function registerSeed(program: Command): void {
  program.command('seed')
    .description('load demo data into an empty store')
    .option('--demo', 'load the demo site: every family, linked, from a seeded generator')
    .option('--scale <n>', 'multiply the counts (1: ~3,000 records; 100: 100,000 entries, 20,000 products)', wholeNumber(1, 1000), 1)
    .option('--seed <n>', 'generator seed; the same seed, scale and day give the same data', wholeNumber(0, 2 ** 32 - 1), 1)
    .option('--no-webhooks', 'queue no webhook deliveries for the demo records, even when PLUGIN_GATEHOUSE_WEBHOOK_URL is set')
    .option('--json', 'print the counts as JSON')
    .action(async (opts: { demo?: boolean; scale: number; seed: number; webhooks: boolean; json?: boolean }) => {
      if (!opts.demo) throw new CliError('nothing to seed: pass --demo (see gatehouse seed --help)')
      const configured = loadCliSettings()
      // The outbox queues events only while a webhook URL is set: these services go without one.
      const settings = opts.webhooks ? configured : { ...configured, webhookUrl: undefined, webhookSecret: undefined }
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
        if (configured.webhookUrl && !opts.webhooks) process.stdout.write('No webhook deliveries were queued (--no-webhooks).\n')
      }, { settings })
    })
}
