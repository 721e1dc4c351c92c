// `gatehouse worker` (webhook delivery only, for scaling out) and `gatehouse webhooks …`
// (status, dead-letter listing and replay, probe): operator tools over the same
// operations the admin API and the machine API use.
import { operatorName } from './operator.js'
import type { Command } from 'commander'
import { pino } from 'pino'
import { openStore, withServices } from './context.js'
import { wholeNumber } from './arguments.js'
import { CliError } from './cli-error.js'
import { printJson, printTable } from './output.js'
import { DeliveryWorker } from '../webhooks/delivery-worker.js'
import { MetricBuckets } from '../ops/metric-buckets.js'
import { ChangeSignal } from '../store/change-signal.js'
import type { DeadLetterStatus } from '../webhooks/dead-letters.js'
import { deadLetterPage } from '../webhooks/dlq-page.js'
import { targetHost } from '../webhooks/probe.js'

const NOT_CONFIGURED = 'webhook delivery is not configured: set PLUGIN_GATEHOUSE_WEBHOOK_URL and PLUGIN_GATEHOUSE_WEBHOOK_SECRET'

interface WorkerCliOptions {
  readonly concurrency: number
  readonly leaseSeconds?: number
  readonly pollMs: number
}

/** Runs a delivery worker until SIGINT or SIGTERM, then lets attempts in flight finish. */
async function runWorker(opts: WorkerCliOptions): Promise<void> {
  const store = await openStore()
  const { settings, database } = store
  if (!settings.webhookUrl || !settings.webhookSecret) {
    await store.close()
    throw new CliError(NOT_CONFIGURED)
  }
  if (opts.leaseSeconds !== undefined && opts.leaseSeconds <= settings.webhookTimeoutSeconds) {
    await store.close()
    throw new CliError(`--lease-seconds must be longer than the delivery timeout (${settings.webhookTimeoutSeconds}s), or an attempt could be sent twice`)
  }
  const logger = pino({ level: settings.logLevel }, pino.destination(2))
  // Its delivery outcomes count in the control panel's charts like the in-process worker's.
  const metricBuckets = new MetricBuckets(database.db)
  // PostgreSQL: every process's commits wake the worker (NOTIFY); the poll is the fallback.
  const changes = new ChangeSignal(database)
  await changes.start()
  const worker = new DeliveryWorker(database, settings, logger, {
    onOutcome: (outcome) => metricBuckets.recordDelivery(outcome),
    concurrency: opts.concurrency,
    pollMs: opts.pollMs,
    changes,
    leaseMs: opts.leaseSeconds === undefined ? undefined : opts.leaseSeconds * 1000,
  })
  worker.start()
  process.stdout.write(`Gatehouse webhook worker ${worker.id} delivering to ${targetHost(settings.webhookUrl)} (concurrency ${opts.concurrency})\n`)
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.stderr.write(`Gatehouse worker: ${signal} received, finishing attempts in flight…\n`)
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      resolve()
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
  })
  await worker.stop()
  await metricBuckets.close().catch(() => {})
  await changes.stop()
  await store.close()
  const s = worker.stats()
  process.stderr.write(`Gatehouse worker: stopped (${s.delivered} delivered, ${s.retried} retried, ${s.deadLettered} dead-lettered)\n`)
}

const statusOption = (value: string): DeadLetterStatus => {
  if (value !== 'failed' && value !== 'queued') throw new CliError('--status must be failed or queued')
  return value
}

export function registerWebhookCommands(program: Command): void {
  program.command('worker')
    .description('deliver webhooks only (no HTTP server); run several against one PostgreSQL database to scale out')
    .option('--concurrency <n>', 'deliveries in flight at once', wholeNumber(1, 256), 16)
    .option('--lease-seconds <n>', 'how long a claimed delivery stays exclusive before another worker may retry it (default: timeout + 15)', wholeNumber(2, 3600))
    .option('--poll-ms <ms>', 'longest idle wait between looks at the queue (on PostgreSQL commits wake the worker, and the wait is at least 10 s)', wholeNumber(10, 60_000), 500)
    .action((opts: WorkerCliOptions) => runWorker(opts))

  const webhooks = program.command('webhooks').description('webhook operations: status, dead-letter queue, probe')

  webhooks.command('status')
    .description('settings in force, routing mode, queue backlog, dead letters and worker heartbeats')
    .option('--json', 'print as JSON')
    .action((opts: { json?: boolean }) => withServices(async ({ services }) => {
      const s = await services.webhooks.status()
      if (opts.json) return printJson(s)
      const q = s.queue
      process.stdout.write([
        `configured:    ${s.configured ? `yes, to ${s.target}` : 'no'}`,
        `timeout:       ${s.timeoutSeconds}s, max attempts ${s.maxAttempts}, retry base ${s.retryBaseSeconds}s`,
        `routing:       ${s.routingMode}`,
        `queued:        ${q.queued}${q.oldestQueuedAgeSeconds !== null ? ` (oldest ${q.oldestQueuedAgeSeconds}s)` : ''}`,
        `dead letters:  ${q.deadLetters}`,
        `delivered 1h:  ${q.deliveredLastHour}`,
        `workers:       ${q.workers.length === 0 ? 'none seen' : q.workers.map((w) => `${w.workerId} (heartbeat ${w.heartbeatAt})`).join(', ')}`,
      ].join('\n') + '\n')
    }))

  const dlq = webhooks.command('dlq').description('dead-letter queue: deliveries that exhausted their attempts')

  dlq.command('list')
    .description('list dead letters, oldest first')
    .option('--status <status>', 'failed (attempts exhausted) or queued (replayed, awaiting delivery); default both', statusOption)
    .option('--limit <n>', 'at most this many', wholeNumber(1, 1000), 50)
    .option('--cursor <cursor>', 'the next page: pagination.nextCursor of the previous --json page')
    .option('--json', 'print the page as GET /webhooks/dlq answers it: {data, pagination}')
    .action((opts: { status?: DeadLetterStatus; limit: number; cursor?: string; json?: boolean }) => withServices(async ({ database, services }) => {
      const page = await deadLetterPage(database, services.cursors, { status: opts.status, limit: opts.limit, cursor: opts.cursor })
      if (opts.json) return printJson(page)
      const { data: items, pagination: { hasMore, nextCursor } } = page
      if (items.length === 0) return void process.stdout.write('The dead-letter queue is empty.\n')
      printTable(['ID', 'STATUS', 'EVENT', 'RESOURCE', 'ATTEMPTS', 'LAST ERROR', 'DEAD SINCE', 'REPLAYS'], items.map((d) => [
        String(d.id), d.status, d.eventId, d.resourceType ? `${d.resourceType}:${d.resourceId} ${d.action}` : d.kind,
        String(d.attempts), d.lastError ?? '-', d.deadLetteredAt, String(d.replayCount),
      ]))
      if (hasMore) process.stdout.write(`(more: --cursor ${String(nextCursor)})\n`)
    }))

  dlq.command('replay')
    .description('put dead letters back in the queue: one with --id, or failed ones with --all')
    .option('--id <id>', 'the dead-letter item id', wholeNumber(1, Number.MAX_SAFE_INTEGER))
    .option('--all', 'replay failed items, oldest first')
    .option('--limit <n>', 'with --all: at most this many', wholeNumber(1, 1000))
    .option('--json', 'print the result as JSON')
    .action((opts: { id?: number; all?: boolean; limit?: number; json?: boolean }) => withServices(async ({ services }) => {
      if ((opts.id === undefined) === (opts.all !== true)) throw new CliError('give either --id N or --all')
      if (opts.limit !== undefined && !opts.all) throw new CliError('--limit goes with --all')
      const request = opts.all ? { mode: 'all' as const, limit: opts.limit ?? 1000 } : { mode: 'single' as const, id: opts.id as number }
      const result = await services.webhooks.replay(request, { type: 'cli', id: operatorName() })
      if (opts.json) return printJson(result)
      process.stdout.write(result.replayed === 0
        ? 'Nothing to replay.\n'
        : `Replayed ${result.replayed} (${result.mode}): ${result.ids.join(', ')}\nA running worker delivers them; a delivered item leaves the queue, one that fails again returns to failed.\n`)
    }))

  webhooks.command('probe')
    .description('send a signed synthetic delivery through the live URL and secret now (five-minute cooldown)')
    .option('--json', 'print the probe result as JSON')
    .action((opts: { json?: boolean }) => withServices(async ({ services }) => {
      const result = await services.webhooks.probe(`cli:${operatorName()}`, { type: 'cli', id: operatorName() })
      if (opts.json) return printJson(result)
      process.stdout.write(`Probe ${result.probeId} to ${result.targetHost}: ${result.status}` +
        `${result.statusCode !== null ? ` (HTTP ${result.statusCode})` : ''}${result.error && result.statusCode === null ? ` (${result.error})` : ''} in ${result.durationMs} ms\n`)
      if (result.status === 'failed') process.exitCode = 1
    }))
}
