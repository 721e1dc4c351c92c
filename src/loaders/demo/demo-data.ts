// Demo data for every family, linked the way a real site is: entries have authors, custom
// fields pointing at assets, categories and tags; blocks belong to entries; addresses to
// users; variants to products; order lines and transfer lines to variants. Everything is
// written through the write service (so the change log and derived values are real) and
// drawn from a seeded generator, so the same seed, scale and day give the same content.
import type { ContentStore } from '../../store/content-store.js'
import { createDemoContext, DAY } from './demo-context.js'
import { createRandom } from './prng.js'
import { seedPeople } from './people-demo.js'
import { seedAssets, seedCategories, seedContentBlocks, seedEntries, seedGlobalSets, seedSections, seedTags } from './content-demo.js'
import { seedDonations, seedOrders, seedProducts, seedSubscriptions, seedTransfers } from './commerce-demo.js'

export interface DemoOptions {
  /** Multiplies the counts: 1 is a small demo site, 100 gives 100,000 entries and 20,000 products. */
  readonly scale?: number
  readonly seed?: number
  /** Records per transaction. */
  readonly chunkSize?: number
  /** Called as records are written: done and expected total (an estimate until the end). */
  readonly onProgress?: (done: number, total: number) => void
  /** Dates are relative to the start of this day (default: today). */
  readonly now?: number
}

export interface DemoResult {
  /** Records created per resource type. */
  readonly counts: Readonly<Record<string, number>>
  readonly total: number
}

/** Records per family at scale 1; sections, global sets and locations are fixed. */
export const DEMO_BASE_COUNTS = {
  users: 50, assets: 200, categories: 30, tags: 60, entries: 1000, contentBlocks: 300,
  products: 200, donations: 5, transfers: 30, subscriptions: 100, orders: 300,
} as const

/** The expected number of records for a scale (addresses and variants are drawn at random). */
export function demoEstimate(scale: number): number {
  const c = DEMO_BASE_COUNTS
  const scaled = Object.values(c).reduce((s, n) => s + n * scale, 0)
  // Addresses average 1.3 per user and variants 3 per product; 5 sections, 5 global sets, 4 locations.
  return Math.round(scaled + 1.3 * c.users * scale + 3 * c.products * scale + 14)
}

export async function seedDemo(store: ContentStore, opts: DemoOptions = {}): Promise<DemoResult> {
  const scale = opts.scale ?? 1
  if (!Number.isInteger(scale) || scale < 1 || scale > 1000) throw new RangeError('scale must be a whole number from 1 to 1000')
  const estimate = demoEstimate(scale)
  let done = 0
  const counts = new Map<string, number>()
  const ctx = createDemoContext(store, {
    random: createRandom(opts.seed ?? 1),
    scale,
    now: Math.floor((opts.now ?? Date.now()) / DAY) * DAY,
    chunkSize: opts.chunkSize ?? 2000,
    onAdvance: (n) => {
      done += n
      opts.onProgress?.(done, Math.max(estimate, done))
    },
  }, counts)
  const n = (family: keyof typeof DEMO_BASE_COUNTS) => DEMO_BASE_COUNTS[family] * scale
  const slice = opts.chunkSize ?? 2000

  const users = await seedPeople(ctx, n('users'), slice)
  const images = await seedAssets(ctx, n('assets'), slice)
  const topicCategories = await seedCategories(ctx, n('categories'))
  const tags = await seedTags(ctx, n('tags'))
  await seedSections(ctx)
  await seedGlobalSets(ctx)
  const authors = users.slice(0, Math.max(1, Math.ceil(users.length / 5))).map((u) => u.id)
  const entryIds = await seedEntries(ctx, n('entries'), slice, { authors, images, topicCategories, tags })
  await seedContentBlocks(ctx, n('contentBlocks'), slice, entryIds, images)
  const variants = await seedProducts(ctx, n('products'), Math.max(1, Math.floor(slice / 4)))
  await seedDonations(ctx, n('donations'))
  await seedTransfers(ctx, n('transfers'), variants)
  await seedSubscriptions(ctx, n('subscriptions'), users, slice)
  await seedOrders(ctx, n('orders'), users, variants, slice)

  opts.onProgress?.(done, done)
  return { counts: Object.fromEntries(counts), total: done }
}
