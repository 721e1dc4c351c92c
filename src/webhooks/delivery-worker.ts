// The delivery worker: claims due deliveries with leases and sends up to `concurrency`
// at once. It runs inside `gatehouse serve` (started by buildApp) and as standalone
// `gatehouse worker` processes; any number of them share one queue, since everything they
// coordinate on (leases, attempts, heartbeats) lives in the database.
import { hostname } from 'node:os'
import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import type { Database } from '../store/database.js'
import type { Settings } from '../kernel/settings.js'
import type { ChangeSignal } from '../store/change-signal.js'
import { claimDeliveries, nextClaimableAt, pruneDelivered, type ClaimedDelivery } from './delivery-queue.js'
import { attemptDelivery, type AttemptOutcome, type DeliveryContext } from './attempt-delivery.js'
import { DeliveredBatcher } from './delivered-batcher.js'
import { AttemptLog, pruneAttempts } from './attempt-log.js'

export interface WorkerOptions {
  readonly workerId?: string
  /** Deliveries in flight at once (default 16). */
  readonly concurrency?: number
  /** Longest idle wait between looks at the queue (default 500 ms; 10 s while `changes` listens). */
  readonly pollMs?: number
  /**
   * Commits of every process (PostgreSQL NOTIFY): the worker looks at the queue on each
   * instead of polling for new deliveries; the poll stays as a fallback.
   */
  readonly changes?: ChangeSignal
  /** How long a claim is exclusive (default: timeout + 15 s); a dead worker's claims expire after it. */
  readonly leaseMs?: number
  /** First retry delay; default PLUGIN_GATEHOUSE_WEBHOOK_RETRY_BASE_SECONDS. */
  readonly retryBaseMs?: number
  readonly heartbeatMs?: number
  /** Delivered rows are kept this long for inspection (default 7 days). */
  readonly keepDeliveredMs?: number
  readonly random?: () => number
  /** Told every attempt's outcome (the control panel's charts count them). */
  readonly onOutcome?: (status: AttemptOutcome['status']) => void
  /**
   * Asked about each failed write before it is logged: true when it was the disk being full,
   * which the storage health has logged once already (polling would repeat it every 500 ms).
   */
  readonly isStorageFull?: (err: unknown) => boolean
}

export interface WorkerStats {
  readonly workerId: string
  readonly running: boolean
  readonly inFlight: number
  readonly delivered: number
  readonly retried: number
  readonly deadLettered: number
}

const PRUNE_EVERY_MS = 10 * 60 * 1000
/** Idle poll while change notifications wake the worker: only a fallback then. */
const NOTIFIED_POLL_MS = 10_000

export class DeliveryWorker {
  readonly id: string
  private readonly concurrency: number
  private readonly basePollMs: number
  private readonly changes: ChangeSignal | undefined
  private unsubscribe: (() => void) | undefined
  private readonly leaseMs: number
  private readonly heartbeatMs: number
  private readonly keepDeliveredMs: number
  private readonly ctx: DeliveryContext
  private readonly delivered: DeliveredBatcher
  private readonly attemptLog: AttemptLog
  /** While the queue keeps slots full, claim in batches of at least this many. */
  private readonly claimBatch: number
  private queueBusy = false
  private readonly inflight = new Set<Promise<void>>()
  private running = false
  private loopDone: Promise<void> | undefined
  private wakeUp: (() => void) | undefined
  private woken = false
  private heartbeatTimer: NodeJS.Timeout | undefined
  private lastPrune = 0
  private readonly startedAt = Date.now()
  private counts = { delivered: 0, retried: 0, deadLettered: 0 }

  constructor(private readonly database: Database, private readonly settings: Settings, private readonly logger: Logger, private readonly opts: WorkerOptions = {}) {
    this.id = opts.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`
    this.concurrency = Math.max(1, opts.concurrency ?? 16)
    this.basePollMs = Math.max(10, opts.pollMs ?? 500)
    this.changes = opts.changes
    this.leaseMs = opts.leaseMs ?? settings.webhookTimeoutSeconds * 1000 + 15_000
    this.heartbeatMs = opts.heartbeatMs ?? 5000
    this.keepDeliveredMs = opts.keepDeliveredMs ?? 7 * 86_400_000
    this.claimBatch = Math.max(1, Math.floor(this.concurrency / 4))
    this.delivered = new DeliveredBatcher(database.db, this.id, logger)
    this.attemptLog = new AttemptLog(database.db, logger)
    this.ctx = {
      database, settings, logger, retryBaseMs: opts.retryBaseMs ?? settings.webhookRetryBaseSeconds * 1000, random: opts.random,
      recordDelivered: (claim, statusCode) => this.delivered.add(claim, statusCode),
      recordAttempt: (entry) => this.attemptLog.add(entry),
      onOutcome: opts.onOutcome,
    }
  }

  start(): void {
    if (this.running) return
    this.running = true
    this.unsubscribe = this.changes?.subscribe(() => this.wake())
    this.loopDone = this.loop()
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.heartbeatMs)
    this.heartbeatTimer.unref()
  }

  /** Look at the queue now instead of at the next poll. */
  wake(): void {
    this.woken = true
    const w = this.wakeUp
    this.wakeUp = undefined
    w?.()
  }

  /** Stops claiming, lets attempts in flight finish (each bounded by the timeout), signs off. */
  async stop(): Promise<void> {
    if (!this.running) return
    this.running = false
    this.unsubscribe?.()
    this.wake()
    await this.loopDone
    await Promise.allSettled([...this.inflight])
    await this.delivered.flush()
    await this.attemptLog.flush(true)
    clearInterval(this.heartbeatTimer)
    await this.database.db.deleteFrom('webhook_workers').where('worker_id', '=', this.id).execute().catch(() => {})
  }

  /** The idle wait: long while notifications wake the worker, the configured poll otherwise. */
  private get pollMs(): number {
    return this.changes?.crossProcess ? Math.max(this.basePollMs, NOTIFIED_POLL_MS) : this.basePollMs
  }

  stats(): WorkerStats {
    return { workerId: this.id, running: this.running, inFlight: this.inflight.size, ...this.counts }
  }

  private async loop(): Promise<void> {
    await this.heartbeat()
    while (this.running) {
      const free = this.concurrency - this.inflight.size
      let claimed = 0
      // A busy queue is claimed in batches, not one row per finished attempt.
      if (this.queueBusy && free < this.claimBatch) {
        await this.sleep(this.pollMs)
        continue
      }
      if (free > 0) {
        try {
          const claims = await claimDeliveries(this.database, { workerId: this.id, limit: free, leaseMs: this.leaseMs })
          for (const c of claims) this.dispatch(c)
          claimed = claims.length
          this.queueBusy = claimed === free
        } catch (err) {
          if (!this.running) break
          if (!this.opts.isStorageFull?.(err)) this.logger.error({ err }, 'webhook worker could not claim deliveries')
          await this.sleep(this.pollMs)
          continue
        }
      }
      if (!this.running) break
      // Full: more may be due; a finishing attempt wakes us.
      if (free === 0 || claimed === free) {
        await this.sleep(this.pollMs)
        continue
      }
      // Nothing more due now: sleep until the next row becomes claimable, a wake, or the poll.
      const next = await nextClaimableAt(this.database.db).catch(() => null)
      const wait = next === null ? this.pollMs : Math.min(this.pollMs, Math.max(0, next - Date.now()))
      if (wait > 0) await this.sleep(wait)
    }
  }

  private dispatch(claim: ClaimedDelivery): void {
    const p: Promise<void> = attemptDelivery(this.ctx, claim)
      .then((outcome) => {
        if (outcome.status === 'delivered') this.counts.delivered++
        else if (outcome.status === 'retrying') this.counts.retried++
        else this.counts.deadLettered++
      })
      .catch((err) => {
        // The lease expires and another claim retries it: at-least-once holds.
        if (!this.opts.isStorageFull?.(err)) this.logger.error({ err, deliveryId: claim.deliveryId }, 'webhook delivery bookkeeping failed')
      })
      .finally(() => {
        this.inflight.delete(p)
        this.wake()
      })
    this.inflight.add(p)
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.wakeUp = undefined; resolve() }, ms)
      this.wakeUp = () => { clearTimeout(timer); this.woken = false; resolve() }
    })
  }

  private async heartbeat(): Promise<void> {
    const now = Date.now()
    const values = { pid: process.pid, hostname: hostname(), heartbeat_at: now, delivered: this.counts.delivered, failed: this.counts.deadLettered }
    try {
      await this.database.db.insertInto('webhook_workers').values({ worker_id: this.id, started_at: this.startedAt, ...values })
        .onConflict((oc) => oc.column('worker_id').doUpdateSet(values)).execute()
      if (now - this.lastPrune > PRUNE_EVERY_MS) {
        this.lastPrune = now
        await pruneDelivered(this.database.db, now - this.keepDeliveredMs)
        await pruneAttempts(this.database.db, now - this.keepDeliveredMs)
        // Heartbeats of workers gone for a day are history, not signal.
        await this.database.db.deleteFrom('webhook_workers').where('heartbeat_at', '<', now - 86_400_000).execute()
      }
    } catch (err) {
      if (this.running && !this.opts.isStorageFull?.(err)) this.logger.warn({ err }, 'webhook worker heartbeat failed')
    }
  }
}
