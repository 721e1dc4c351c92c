// Expiry of approvals runs on a timer, never as a side effect of reading: an interval sweeps
// what is due (also approvals other processes created), and a one-off timer is armed for the
// earliest expiry this process knows of, so a short TTL expires on time. Started and stopped
// with the app, like the operations timers.
import type { Logger } from 'pino'
import type { ApprovalStore } from './approval-store.js'

export class ApprovalExpiry {
  private interval: NodeJS.Timeout | undefined
  private soon: { timer: NodeJS.Timeout; at: number } | undefined
  private running: Promise<number> | undefined

  constructor(private readonly approvals: ApprovalStore, private readonly logger: Logger, private readonly everyMs = 15_000) {}

  start(): void {
    if (this.interval) return
    this.interval = setInterval(() => void this.sweep(), this.everyMs)
    this.interval.unref()
  }

  async stop(): Promise<void> {
    if (this.interval) clearInterval(this.interval)
    this.interval = undefined
    if (this.soon) clearTimeout(this.soon.timer)
    this.soon = undefined
    await this.running?.catch(() => 0)
  }

  get started(): boolean {
    return this.interval !== undefined
  }

  /** Sweeps once when an approval expiring at `at` is due before the next interval tick. */
  arm(at: number): void {
    if (!this.interval || (this.soon && this.soon.at <= at)) return
    if (this.soon) clearTimeout(this.soon.timer)
    const timer = setTimeout(() => { this.soon = undefined; void this.sweep() }, Math.max(0, at - Date.now()) + 5)
    timer.unref()
    this.soon = { timer, at }
  }

  /** Expires what is due now; one sweep at a time per process. Returns how many expired. */
  sweep(): Promise<number> {
    this.running ??= this.approvals.expireDue()
      .catch((err: unknown) => { this.logger.warn({ err }, 'approval expiry sweep failed'); return 0 })
      .finally(() => { this.running = undefined })
    return this.running
  }
}
