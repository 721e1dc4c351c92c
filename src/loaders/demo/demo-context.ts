// What the demo generators share: the seeded random source, the scale, the day the dates
// are relative to, and chunked writes through the write service with progress.
import type { ContentStore, StoreWriter } from '../../store/content-store.js'
import type { Doc } from '../../resources/hooks.js'
import type { Random } from './prng.js'

export const DEMO_SITE = 'https://demo.gatehouse.test'
export const DAY = 86_400_000

export interface DemoContext {
  readonly random: Random
  readonly scale: number
  /** Start of the day of seeding (ms): dates are relative to it. */
  readonly now: number
  /** Creates records of one type in chunked transactions; returns them with their ids. */
  create(type: string, inputs: readonly unknown[]): Promise<Doc[]>
  /** One transaction for writes that belong together (a product and its variants). */
  transaction<T>(fn: (w: StoreWriter) => Promise<T>): Promise<T>
  /** Reports progress in units of planned records. */
  advance(units: number): void
  /** Counts what was written, per type. */
  count(type: string, n: number): void
}

export interface DemoContextOptions {
  readonly random: Random
  readonly scale: number
  readonly now: number
  readonly chunkSize: number
  readonly onAdvance: (units: number) => void
}

export function createDemoContext(store: ContentStore, opts: DemoContextOptions, counts: Map<string, number>): DemoContext {
  const count = (type: string, n: number) => counts.set(type, (counts.get(type) ?? 0) + n)
  return {
    random: opts.random,
    scale: opts.scale,
    now: opts.now,
    async create(type, inputs) {
      const out: Doc[] = []
      for (let start = 0; start < inputs.length; start += opts.chunkSize) {
        const chunk = inputs.slice(start, start + opts.chunkSize)
        out.push(...(await store.transaction((w) => w.createMany(type, chunk))))
        count(type, chunk.length)
        opts.onAdvance(chunk.length)
      }
      return out
    },
    transaction: (fn) => store.transaction(fn),
    advance: opts.onAdvance,
    count,
  }
}

/**
 * ISO date `days` from the seeding day at a random time of day: positive is ahead (scheduled
 * posts, next payments), zero or negative in the past. A past date is drawn from the whole
 * day before the one it names (0: yesterday), because any time "today" may still lie ahead
 * of the moment of seeding: an order dated two hours from now is not an order.
 */
export function isoDays(ctx: DemoContext, days: number): string {
  const day = days > 0 ? days : days - 1
  return new Date(ctx.now + day * DAY + ctx.random.int(0, DAY - 1)).toISOString()
}

/** Runs `build(i)` for `total` records in slices of `size`, writing each slice before building the next. */
export async function inSlices(total: number, size: number, write: (from: number, to: number) => Promise<void>): Promise<void> {
  for (let from = 0; from < total; from += size) await write(from, Math.min(total, from + size))
}
