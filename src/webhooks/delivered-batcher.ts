// Collects successful deliveries and records them in one UPDATE per flush, instead of one
// statement per delivery: under load the worker's database round trips, not HTTP, are
// what limit throughput. A crash before a flush only means those deliveries are sent
// again once their leases expire (at-least-once; same delivery and event ids).
import type { Logger } from 'pino'
import type { Db } from '../store/database.js'
import { markDelivered, type ClaimedDelivery } from './delivery-queue.js'

export class DeliveredBatcher {
  private pending = new Map<number, number[]>()
  private size = 0
  private timer: NodeJS.Timeout | undefined
  private flushing: Promise<void> = Promise.resolve()

  constructor(private readonly db: Db, private readonly workerId: string, private readonly logger: Logger,
    private readonly maxBatch = 64, private readonly maxDelayMs = 20) {}

  add(claim: ClaimedDelivery, statusCode: number): Promise<void> {
    const ids = this.pending.get(statusCode) ?? []
    ids.push(claim.id)
    this.pending.set(statusCode, ids)
    this.size++
    if (this.size >= this.maxBatch) void this.flush()
    else this.timer ??= setTimeout(() => void this.flush(), this.maxDelayMs)
    return Promise.resolve()
  }

  /** Writes everything collected so far; resolves when it (and earlier flushes) are done. */
  flush(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    const batch = this.pending
    this.pending = new Map()
    this.size = 0
    this.flushing = this.flushing.then(async () => {
      for (const [code, ids] of batch) {
        try {
          await markDelivered(this.db, ids, this.workerId, code)
        } catch (err) {
          // Left queued with their leases: they are sent again after the leases expire.
          this.logger.error({ err, count: ids.length }, 'could not record delivered webhooks')
        }
      }
    })
    return this.flushing
  }
}
