// Timers that sweep stored state whose time is up (approvals that expire, workflow runs whose
// lease runs out): never a side effect of reading. An interval sweeps what is due (also what
// other processes created), and a one-off timer is armed for the earliest moment this process
// knows of, so a short deadline is met on time. Sweeps must be safe to run in several
// processes at once (conditional updates); one runs at a time per process. Started and
// stopped with the app.
import type { Logger } from 'pino'

/** Deadlines a process keeps in mind at most (the interval still finds the rest). */
const DEADLINES_KEPT = 1000

export class SweepTimer {
  private interval: NodeJS.Timeout | undefined
  private soon: { timer: NodeJS.Timeout; at: number } | undefined
  private running: Promise<number> | undefined
  /**
   * The moments armed and not yet passed, earliest first. Only the earliest has a timer; when
   * it fires, the next gets one. (With one timer only, a lease renewed past its first end lost
   * its own: the timer for the first end fired, found nothing due, and the renewed end waited
   * for the interval, up to 5 s late.)
   */
  private readonly deadlines: number[] = []

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
    this.deadlines.length = 0
    await this.running?.catch(() => 0)
  }

  get started(): boolean {
    return this.interval !== undefined
  }

  /** Sweeps once at `at` (epoch ms, real time) when that comes before the next interval tick. */
  arm(at: number): void {
    if (!this.interval) return
    let i = this.deadlines.length
    while (i > 0 && this.deadlines[i - 1] > at) i--
    if (this.deadlines[i - 1] !== at) this.deadlines.splice(i, 0, at)
    if (this.deadlines.length > DEADLINES_KEPT) this.deadlines.pop()
    this.armEarliest()
  }

  /** A timer for the earliest deadline still ahead, unless one is set for it or sooner. */
  private armEarliest(): void {
    const now = Date.now()
    while (this.deadlines.length > 0 && this.deadlines[0] < now) this.deadlines.shift()
    const at = this.deadlines[0]
    if (at === undefined || !this.interval || (this.soon && this.soon.at <= at)) return
    if (this.soon) clearTimeout(this.soon.timer)
    const timer = setTimeout(() => {
      this.soon = undefined
      // A sweep already running began before this deadline: the one that counts starts after it.
      void (this.running ?? Promise.resolve(0)).then(() => this.sweep()).finally(() => this.armEarliest())
    }, Math.max(0, at - now) + 5)
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
