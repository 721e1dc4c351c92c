// The webhooks part as one process sees it: the outbox hook every content write runs, the
// in-process delivery worker's lifecycle, and the operator operations (probe, sink
// send-test, status) the admin API, the CLI and the control panel share.
import type { Logger } from 'pino'
import type { Database } from '../store/database.js'
import type { ChangeHook } from '../store/content-store.js'
import type { Settings } from '../settings.js'
import { outboxHook } from './outbox.js'
import { DeliveryWorker, type WorkerOptions } from './delivery-worker.js'
import { runProbe, probeLedger, targetHost, type ProbeAttempt, type ProbeLedger } from './probe.js'
import { sendTestDelivery, type TestDeliveryResult } from './send-test.js'
import { queueStats, type QueueStats } from './queue-stats.js'
import { loadInterestHolders, routingModeOf, type RoutingMode } from './targeting.js'
import { sinkEnabled } from './sink-url.js'

export interface WebhookStatus {
  readonly configured: boolean
  /** Scheme, host and port only: a URL may carry credentials of its own. */
  readonly target: string | null
  readonly timeoutSeconds: number
  readonly maxAttempts: number
  readonly retryBaseSeconds: number
  readonly routingMode: RoutingMode
  readonly sinkEnabled: boolean
  readonly inProcessWorker: boolean
  readonly queue: QueueStats
}

export class WebhookService {
  readonly outboxHook: ChangeHook
  private worker: DeliveryWorker | undefined

  constructor(private readonly database: Database, private readonly settings: Settings, private readonly logger: Logger) {
    // The hook runs before the write commits. On SQLite the worker's claim waits for the
    // one connection, so it sees the rows; on PostgreSQL it may look too early, so it looks
    // again just after the commit has usually landed (else the next poll finds them).
    this.outboxHook = outboxHook(settings, () => {
      this.wakeWorker()
      setTimeout(() => this.wakeWorker(), 15).unref()
    })
  }

  get configured(): boolean {
    return Boolean(this.settings.webhookUrl && this.settings.webhookSecret)
  }

  /** Starts the in-process worker (once); undefined when delivery is not configured. */
  startWorker(opts: WorkerOptions = {}): DeliveryWorker | undefined {
    if (!this.configured) return undefined
    if (!this.worker) {
      this.worker = new DeliveryWorker(this.database, this.settings, this.logger, opts)
      this.worker.start()
    }
    return this.worker
  }

  async stopWorker(): Promise<void> {
    const w = this.worker
    this.worker = undefined
    await w?.stop()
  }

  wakeWorker(): void {
    this.worker?.wake()
  }

  probe(triggeredBy: string): Promise<ProbeAttempt> {
    return runProbe(this.database, this.settings, triggeredBy)
  }

  probeLedger(limit?: number): Promise<ProbeLedger> {
    return probeLedger(this.database, limit)
  }

  sendTest(triggeredBy: string): Promise<TestDeliveryResult> {
    return sendTestDelivery({ database: this.database, settings: this.settings, logger: this.logger,
      retryBaseMs: this.settings.webhookRetryBaseSeconds * 1000 }, triggeredBy)
  }

  async status(): Promise<WebhookStatus> {
    const s = this.settings
    return {
      configured: this.configured,
      target: s.webhookUrl ? targetHost(s.webhookUrl) : null,
      timeoutSeconds: s.webhookTimeoutSeconds,
      maxAttempts: s.webhookMaxAttempts,
      retryBaseSeconds: s.webhookRetryBaseSeconds,
      routingMode: routingModeOf(await loadInterestHolders(this.database.db)),
      sinkEnabled: sinkEnabled(s),
      inProcessWorker: this.worker !== undefined,
      queue: await queueStats(this.database),
    }
  }
}
