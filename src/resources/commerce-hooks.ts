// Commerce behaviour: a variant's availability, a product's stock, default and variant
// summary from its variants, an order's totals and paid status.
import { invalid } from '../kernel/errors.js'
import { round2 } from '../kernel/numbers.js'
import type { Doc, FamilyHooks } from './hooks.js'
import { orderTransitionConflict } from './order-status.js'

/**
 * The advisory lock of writes that make a variant the default (beside SCHEMA_LOCK 7270001,
 * CHANGE_LOG_LOCK 7270002, POLICY_LOCK 7270003, ADMIN_ACCOUNTS_LOCK 7270004 and
 * NEW_ENTRY_DRAFTS_LOCK 7270005). One for all products: such writes are rare.
 */
export const DEFAULT_VARIANT_LOCK = 7270006

export const variantHooks: FamilyHooks = {
  beforeWrite(_w, next) {
    next.isAvailable = next.status === 'live' && (next.hasUnlimitedStock === true || (next.stock as number) > 0)
  },
  async afterWrite(w, next, previous) {
    if (next) w.markDirty('products', next.productId as number)
    if (previous && previous.productId !== next?.productId) w.markDirty('products', previous.productId as number)
    // A product has one default variant: a variant made the default takes it from the others
    // (each an `updated` change), as choosing a default in the CMS does. Such writes take
    // turns: two at once on PostgreSQL each saw no other default (the other's row not yet
    // committed) and both stayed the default.
    if (next?.isDefault === true && (previous?.isDefault !== true || previous.productId !== next.productId)) {
      await w.takeTurns(DEFAULT_VARIANT_LOCK)
      for (const other of await w.docsWhere('variants', 'productId', next.productId)) {
        if (other.id !== next.id && other.isDefault === true) await w.update('variants', other.id as number, { isDefault: false })
      }
    }
  },
}

export const productHooks: FamilyHooks = {
  // A new product has no variants yet; its stock fields must say so (totalStock 0, not
  // the null that means unlimited) until a variant write refreshes them.
  beforeWrite(_w, next, previous) {
    if (!previous) Object.assign(next, productStock([]))
  },
  async beforeDelete(w, previous) {
    for (const id of await w.idsWhere('variants', 'productId', previous.id)) await w.remove('variants', id, { skipHooks: true })
  },
  async rollup(w, product) {
    return productStock(await w.docsWhere('variants', 'productId', product.id))
  },
}

export const orderHooks: FamilyHooks = {
  beforeWrite(_w, next, previous, write) {
    // The status decides isCompleted and dateOrdered: a cart is not placed and has no order
    // date; leaving the cart places the order now unless a date was given.
    const status = (next.status as string | undefined) ?? 'cart'
    // An undo puts back the status this transaction changed: not a transition of its own.
    if (previous && write?.restore !== true) {
      const conflict = orderTransitionConflict(previous.id, (previous.status as string | undefined) ?? 'cart', status)
      if (conflict) throw conflict
    }
    next.isCompleted = status !== 'cart'
    if (status === 'cart') next.dateOrdered = null
    else if (next.dateOrdered === null || next.dateOrdered === undefined) next.dateOrdered = new Date().toISOString()
    const lines = (next.lineItems as { subtotal: number }[]) ?? []
    next.itemTotal = round2(lines.reduce((s, l) => s + l.subtotal, 0))
    const price = next.totalPrice as number
    const paid = next.totalPaid as number
    const refunded = next.totalRefunded as number
    if (refunded > paid) throw invalid('totalRefunded', 'cannot exceed totalPaid')
    next.paidStatus =
      refunded > 0 && refunded >= paid ? 'refunded'
        : paid <= 0 ? 'unpaid'
          : paid < price ? 'partial'
            : paid > price ? 'overPaid' : 'paid'
  },
}

/** Product fields computed from its variants (ordered by id). */
export function productStock(variants: readonly Doc[]): Doc {
  const unlimited = variants.some((v) => v.hasUnlimitedStock === true)
  const def = variants.find((v) => v.isDefault === true) ?? variants[0]
  return {
    hasUnlimitedStock: unlimited,
    totalStock: unlimited ? null : variants.reduce((s, v) => s + (v.stock as number), 0),
    defaultSku: def ? def.sku : null,
    defaultPrice: def ? def.price : null,
    variants: variants.map((v) => ({
      id: v.id, sku: v.sku, title: v.title, price: v.price, stock: v.stock,
      hasUnlimitedStock: v.hasUnlimitedStock, isAvailable: v.isAvailable, isDefault: v.isDefault,
    })),
  }
}
