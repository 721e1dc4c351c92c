// Timers that sweep stored state whose time is up (approvals that expire, workflow runs whose
// lease runs out): never a side effect of reading. An interval sweeps what is due (also what
// other processes created), and a one-off timer is armed for the earliest moment this process
// knows of, so a short deadline is met on time. Sweeps must be safe to run in several
// processes at once (conditional updates); one runs at a time per process. Started and
// stopped with the app.
import type { Logger } from 'pino'

export class SweepTimer {
  private interval: NodeJS.Timeout | undefined
  private soon: { timer: NodeJS.Timeout; at: number } | undefined
  private running: Promise<number> | undefined

  /** `sweepOnce` does the work and answers how many records it changed; `what` names it in the log. */
  constructor(private readonly sweepOnce: () => Promise<number>, private readonly logger: Logger, private readonly what: string, private readonly everyMs: number) {}

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

  /** Sweeps once at `at` (epoch ms, real time) when that comes before the next interval tick. */
  arm(at: number): void {
    if (!this.interval || (this.soon && this.soon.at <= at)) return
    if (this.soon) clearTimeout(this.soon.timer)
    const timer = setTimeout(() => { this.soon = undefined; void this.sweep() }, Math.max(0, at - Date.now()) + 5)
    timer.unref()
    this.soon = { timer, at }
  }

  /** Sweeps what is due now; one sweep at a time per process. Answers how many records changed. */
  sweep(): Promise<number> {
    this.running ??= this.sweepOnce()
      .catch((err: unknown) => { this.logger.warn({ err }, `${this.what} failed`); return 0 })
      .finally(() => { this.running = undefined })
    return this.running
  }
}
