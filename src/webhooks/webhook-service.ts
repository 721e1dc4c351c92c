// The webhooks part as one process sees it: the outbox hook every content write runs, the
// in-process delivery worker's lifecycle, and the operator operations (probe, sink
// send-test, replay, status) the admin API, the machine API, the CLI and the control panel
// share. Probes and replays are reported to an optional hook (the control plane's audit log).
import type { Logger } from 'pino'
import { ApiError } from '../kernel/errors.js'
import type { Database, Db } from '../store/database.js'
import type { ChangeHook } from '../store/content-store.js'
import type { Settings } from '../kernel/settings.js'
import type { ChangeSignal } from '../store/change-signal.js'
import { outboxHook } from './outbox.js'
import { DeliveryWorker, type WorkerOptions } from './delivery-worker.js'
import { runProbe, probeLedger, targetHost, type ProbeAttempt, type ProbeLedger } from './probe.js'
import { sendTestDelivery, type TestDeliveryResult } from './send-test.js'
import type { AttemptOutcome } from './attempt-delivery.js'
import { queueStats, type QueueStats } from './queue-stats.js'
import { routingModeOf, type RoutingMode } from './targeting.js'
import { loadInterestHolders } from '../auth/credential-interests.js'
import { sinkEnabled } from './sink-url.js'
import { replayAll, replayOne, type ReplayResult } from './dead-letters.js'
import { replayMatching } from './delivery-log.js'
import type { ReplayRequest } from './dlq-schemas.js'

/** Who ran a probe or replay: the admin API and panel pass the admin, the CLI the operator, the machine API the credential. */
export interface WebhookActor {
  readonly type: 'admin' | 'cli' | 'credential'
  readonly id: string
  /** The HTTP request that asked, when one did (its audit record names it). */
  readonly requestId?: string
}

export type WebhookOperation =
  | { readonly kind: 'probe'; readonly outcome: 'delivered' | 'failed' | 'cooldown-refused'; readonly attempt: ProbeAttempt | null; readonly by: WebhookActor }
  | { readonly kind: 'replay'; readonly request: ReplayRequest; readonly result: ReplayResult; readonly by: WebhookActor }

/**
 * Runs inside the transaction of each probe's ledger write and each replay (the control
 * plane's audit log is written through it), so the operation and its record commit
 * together. A callback, so this part does not depend on the control plane.
 */
export type WebhookOperationHook = (tx: Db, operation: WebhookOperation) => Promise<void>

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
  /** Audits probes and replays (the control plane's audit log). */
  private readonly onOperation: WebhookOperationHook | undefined
  /** Told each delivery attempt's outcome (the charts count them). */
  private readonly onAttempt: ((status: AttemptOutcome['status']) => void) | undefined

  /** Whether a failed write was the disk being full (logged once by the storage health, not per poll). */
  private readonly isStorageFull: ((err: unknown) => boolean) | undefined

  constructor(private readonly database: Database, private readonly settings: Settings, private readonly logger: Logger, opts: { onOperation?: WebhookOperationHook; onAttempt?: (status: AttemptOutcome['status']) => void; isStorageFull?: (err: unknown) => boolean } = {}) {
    this.onOperation = opts.onOperation
    this.onAttempt = opts.onAttempt
    this.isStorageFull = opts.isStorageFull
    // The hook runs before the write commits. On SQLite the worker's claim waits for the
    // one connection, so it sees the rows; on PostgreSQL the commit's notification wakes it
    // (src/store/change-signal.ts).
    this.outboxHook = outboxHook(settings, () => this.wakeWorker())
  }

  get configured(): boolean {
    return Boolean(this.settings.webhookUrl && this.settings.webhookSecret)
  }

  /**
   * Starts the in-process worker (once); undefined when delivery is not configured. With a
   * change signal it wakes on every process's commits instead of polling for them.
   */
  startWorker(opts: WorkerOptions = {}, changes?: ChangeSignal): DeliveryWorker | undefined {
    if (!this.configured) return undefined
    if (!this.worker) {
      this.worker = new DeliveryWorker(this.database, this.settings, this.logger, { onOutcome: this.onAttempt, isStorageFull: this.isStorageFull, ...opts, changes: opts.changes ?? changes })
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

  /** `triggeredBy` is what the probe payload and ledger show; `by` is who the audit log names. */
  async probe(triggeredBy: string, by: WebhookActor): Promise<ProbeAttempt> {
    try {
      return await runProbe(this.database, this.settings, triggeredBy, Date.now(),
        (tx, attempt) => this.onOperation?.(tx, { kind: 'probe', outcome: attempt.status, attempt, by }) ?? Promise.resolve())
    } catch (err) {
      // A refusal inside the cooldown is audited too (in a transaction of its own: nothing else is written).
      const hook = this.onOperation
      if (hook && err instanceof ApiError && err.code === 'RATE_LIMIT_EXCEEDED') {
        await this.database.db.transaction().execute((tx) => hook(tx, { kind: 'probe', outcome: 'cooldown-refused', attempt: null, by }))
      }
      throw err
    }
  }

  /**
   * Replays one dead letter or all failed ones (the DLQ), or one delivery or those a
   * delivery-log filter selects; audited in the same transaction, then wakes the worker.
   */
  async replay(request: ReplayRequest, by: WebhookActor): Promise<ReplayResult> {
    const { adapter } = this.database
    const result = await this.database.db.transaction().execute(async (tx) => {
      const r = request.mode === 'all' ? await replayAll(tx, request.limit)
        : request.mode === 'single' ? await replayOne(tx, request.id)
          : await replayMatching(tx, adapter, request.mode === 'delivery' ? { id: request.id } : { filter: request.filter, limit: request.limit })
      await this.onOperation?.(tx, { kind: 'replay', request, result: r, by })
      // Workers in other processes (`gatehouse worker`) wake at commit.
      if (r.replayed > 0) await this.database.adapter.notifyChange(tx, 'replayed')
      return r
    })
    if (result.replayed > 0) this.wakeWorker()
    return result
  }

  probeLedger(limit?: number): Promise<ProbeLedger> {
    return probeLedger(this.database, limit)
  }

  sendTest(triggeredBy: string): Promise<TestDeliveryResult> {
    return sendTestDelivery({ database: this.database, settings: this.settings, logger: this.logger,
      retryBaseMs: this.settings.webhookRetryBaseSeconds * 1000, onOutcome: this.onAttempt }, triggeredBy)
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
