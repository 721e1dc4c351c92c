// Demo commerce: products with 1–5 variants, donations, inventory locations and transfers,
// subscriptions, and orders whose line items point at real variants.
import type { Doc } from '../../resources/hooks.js'
import { type DemoContext, inSlices, isoDays } from './demo-context.js'
import { round2 } from '../../kernel/numbers.js'
import type { DemoUser } from './people-demo.js'
import { ADJECTIVES, PLACES, STREETS, sentence, slugify } from './words.js'

export interface DemoVariant {
  readonly id: number
  readonly sku: string
  readonly description: string
  readonly price: number
}

const PRODUCT_TYPES = [['apparel', 'APP', 30], ['accessories', 'ACC', 25], ['home', 'HOM', 20], ['books', 'BOK', 15], ['digital', 'DIG', 10]] as const
const NOUNS_BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  apparel: ['Jacket', 'Hoodie', 'Scarf', 'Cap', 'Sneaker', 'Apron', 'T-Shirt', 'Sweater'],
  accessories: ['Backpack', 'Wallet', 'Tote', 'Bottle', 'Belt', 'Sunglasses', 'Keyring'],
  home: ['Mug', 'Lamp', 'Chair', 'Blanket', 'Candle', 'Planter', 'Cushion', 'Vase'],
  books: ['Notebook', 'Journal', 'Cookbook', 'Field Guide', 'Sketchbook', 'Atlas'],
  digital: ['E-Book', 'Gift Card', 'Sewing Pattern', 'Font Licence', 'Photo Pack'],
}
const SIZES = ['XS', 'S', 'M', 'L', 'XL']
const COLOURS = ['Black', 'White', 'Navy', 'Olive', 'Rust', 'Sand']
const BRANDS = ['Northwind', 'Fjord & Fern', 'Atlas Goods', 'Kettle Co', 'Lumen']

/** Products, each written with its variants in one transaction so totals are derived once. */
export async function seedProducts(ctx: DemoContext, total: number, slice: number): Promise<DemoVariant[]> {
  const { random } = ctx
  const variants: DemoVariant[] = []
  await inSlices(total, slice, async (from, to) => {
    const products: Doc[] = []
    const variantSets: Doc[][] = []
    for (let i = from; i < to; i++) {
      const [type, prefix] = random.weighted(PRODUCT_TYPES.map(([t, p, w]) => [[t, p], w] as const))
      const title = `${random.pick(ADJECTIVES)} ${random.pick(NOUNS_BY_TYPE[type])}`
      products.push({
        type, title, slug: `${slugify(title)}-${i + 1}`,
        status: random.weighted([['live', 85], ['pending', 5], ['disabled', 6], ['expired', 4]] as const),
        postDate: isoDays(ctx, -random.int(1, 700)), expiryDate: null,
        fields: { description: sentence(random), brand: random.pick(BRANDS), madeIn: random.pick(PLACES).countryCode },
      })
      const base = random.int(5, 180) - 0.01
      const options = type === 'apparel' ? SIZES : COLOURS
      const count = random.int(1, 5)
      variantSets.push(random.sample(options, count).map((option, k) => ({
        sku: `${prefix}-${String(i + 1).padStart(6, '0')}-${k + 1}`,
        title: count === 1 ? 'Default' : option,
        price: round2(base + k * random.pick([0, 0, 5, 10])),
        status: random.chance(0.95) ? 'live' : 'disabled',
        // About one variant in eight is sold out, so low-stock filters have something to find.
        stock: type === 'digital' ? 0 : random.chance(0.12) ? 0 : random.int(1, 250),
        hasUnlimitedStock: type === 'digital',
        isDefault: k === 0,
      })))
    }
    const created = await ctx.transaction(async (w) => {
      const ps = await w.createMany('products', products)
      const vs = await w.createMany('variants', ps.flatMap((p, j) => variantSets[j].map((v) => ({ ...v, productId: p.id }))))
      return { ps, vs }
    })
    ctx.count('products', created.ps.length)
    ctx.count('variants', created.vs.length)
    const titles = new Map(created.ps.map((p) => [p.id, p.title as string]))
    for (const v of created.vs) {
      variants.push({ id: v.id as number, sku: v.sku as string, price: v.price as number, description: `${titles.get(v.productId)} – ${v.title as string}` })
    }
    ctx.advance(created.ps.length + created.vs.length)
  })
  return variants
}

export async function seedDonations(ctx: DemoContext, total: number): Promise<void> {
  const causes = ['Open Source', 'Reforestation', 'Clean Water', 'Local Libraries', 'Coding Clubs']
  await ctx.create('donations', Array.from({ length: total }, (_, i) => ({
    sku: `DONATE-${String(i + 1).padStart(4, '0')}`,
    title: `Support ${causes[i % causes.length]}${i >= causes.length ? ` ${Math.floor(i / causes.length) + 1}` : ''}`,
    status: ctx.random.weighted([['live', 8], ['pending', 1], ['disabled', 1]] as const),
    availableForPurchase: ctx.random.chance(0.85),
  })))
}

export async function seedTransfers(ctx: DemoContext, total: number, variants: readonly DemoVariant[]): Promise<void> {
  const { random } = ctx
  const locations = await ctx.create('locations', [
    { handle: 'warehouse-east', name: 'Warehouse East' }, { handle: 'warehouse-west', name: 'Warehouse West' },
    { handle: 'store-downtown', name: 'Downtown Store' }, { handle: 'store-airport', name: 'Airport Store' },
  ])
  const ids = locations.map((l) => l.id as number)
  await ctx.create('transfers', Array.from({ length: total }, (_, i) => {
    const [originLocationId, destinationLocationId] = random.sample(ids, 2)
    const status = random.weighted([['draft', 2], ['pending', 3], ['partial', 2], ['received', 5]] as const)
    return {
      reference: `TR-${String(i + 1).padStart(6, '0')}`, status, originLocationId, destinationLocationId,
      lines: random.sample(variants, random.int(1, 5)).map((v) => {
        const quantity = random.int(1, 50)
        const rejected = status === 'received' || status === 'partial' ? random.int(0, Math.floor(quantity / 10)) : 0
        const accepted = status === 'received' ? quantity - rejected : status === 'partial' ? random.int(0, quantity - rejected) : 0
        return { sku: v.sku, quantity, accepted, rejected }
      }),
    }
  }))
}

export async function seedSubscriptions(ctx: DemoContext, total: number, users: readonly DemoUser[], slice: number): Promise<void> {
  const { random } = ctx
  await inSlices(total, slice, async (from, to) => {
    const inputs = []
    for (let i = from; i < to; i++) {
      const status = random.weighted([['active', 70], ['canceled', 12], ['expired', 10], ['suspended', 8]] as const)
      inputs.push({
        reference: `SUB-${String(i + 1).padStart(7, '0')}`,
        userId: random.pick(users).id,
        planId: random.int(1, 4),
        status,
        trialDays: random.pick([0, 0, 0, 7, 14, 30]),
        nextPaymentDate: status === 'active' ? isoDays(ctx, random.int(1, 30)) : null,
        dateCanceled: status === 'canceled' ? isoDays(ctx, -random.int(1, 300)) : null,
        dateExpired: status === 'expired' ? isoDays(ctx, -random.int(1, 300)) : null,
        dateSuspended: status === 'suspended' ? isoDays(ctx, -random.int(1, 60)) : null,
      })
    }
    await ctx.create('subscriptions', inputs)
  })
}

const ORDER_STATUSES = [['completed', 55], ['shipped', 15], ['processing', 10], ['pending', 8], ['cancelled', 4], ['refunded', 3], ['cart', 5]] as const

export async function seedOrders(ctx: DemoContext, total: number, users: readonly DemoUser[], variants: readonly DemoVariant[], slice: number): Promise<void> {
  const { random } = ctx
  let lineId = 0
  await inSlices(total, slice, async (from, to) => {
    const inputs = []
    for (let i = from; i < to; i++) {
      const status = random.weighted(ORDER_STATUSES)
      const lineItems = random.sample(variants, random.int(1, 4)).map((v) => {
        const qty = random.int(1, 3)
        return { id: ++lineId, sku: v.sku, description: v.description, qty, price: v.price, subtotal: round2(v.price * qty), variantId: v.id }
      })
      const itemTotal = round2(lineItems.reduce((s, l) => s + l.subtotal, 0))
      const totalPrice = round2(itemTotal + (itemTotal >= 50 ? 0 : 4.95))
      const paid = status === 'cart' || status === 'pending' ? 0 : totalPrice
      const user = random.chance(0.8) ? random.pick(users) : undefined
      const place = random.pick(PLACES)
      const fullName = user?.fullName ?? 'Guest Customer'
      const address = {
        fullName, addressLine1: `${random.int(1, 400)} ${random.pick(STREETS)}`, addressLine2: null,
        locality: place.locality, postalCode: place.postalCode, countryCode: place.countryCode,
      }
      const email = user?.email ?? `guest${i + 1}@example.com`
      inputs.push({
        number: random.hex(32),
        reference: status === 'cart' ? null : `GH-${String(i + 1).padStart(7, '0')}`,
        status,
        isCompleted: status !== 'cart',
        dateOrdered: status === 'cart' ? null : isoDays(ctx, -random.int(0, 365)),
        currency: random.weighted([['USD', 6], ['EUR', 3], ['GBP', 1]] as const),
        totalPrice, totalPaid: paid, totalRefunded: status === 'refunded' ? paid : 0,
        lineItems,
        fields: { giftMessage: random.chance(0.05) ? sentence(random, 4, 8) : null, source: random.pick(['web', 'web', 'mobile', 'pos']) },
        email,
        billingAddress: status === 'cart' ? null : address,
        shippingAddress: status === 'cart' ? null : address,
        customer: { id: user?.id ?? null, email, fullName },
      })
    }
    await ctx.create('orders', inputs)
  })
}
