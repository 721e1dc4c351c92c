// Values the write service keeps right across records: a variant's availability, a
// product's stock and variant summary, a category's level, an order's totals.
import type { Doc } from './documents.js'
import type { StoreWriter } from './content-store.js'
import { invalid } from '../contract/errors.js'

export interface Derivation {
  /** Compute derived fields of `next` in place (previous is the stored version on update). */
  beforeWrite?(w: StoreWriter, next: Doc, previous: Doc | undefined): Promise<void> | void
  /** Cascades after the record was written or deleted (`next` null on delete). */
  afterWrite?(w: StoreWriter, next: Doc | null, previous: Doc | undefined): Promise<void> | void
  beforeDelete?(w: StoreWriter, previous: Doc): Promise<void>
}

const round2 = (n: number) => Math.round(n * 100) / 100

export const derivations: Readonly<Record<string, Derivation>> = {
  variants: {
    beforeWrite(_w, next) {
      next.isAvailable = next.status === 'live' && (next.hasUnlimitedStock === true || (next.stock as number) > 0)
    },
    afterWrite(w, next, previous) {
      if (next) w.markProductDirty(next.productId as number)
      if (previous && previous.productId !== next?.productId) w.markProductDirty(previous.productId as number)
    },
  },
  products: {
    // A new product has no variants yet; its stock fields must say so (totalStock 0, not
    // the null that means unlimited) until a variant write refreshes them.
    beforeWrite(_w, next, previous) {
      if (!previous) Object.assign(next, productStock([]))
    },
    async beforeDelete(w, previous) {
      const ids = await w.idsWhere('variants', 'productId', previous.id as number)
      for (const id of ids) await w.remove('variants', id, { skipProductRefresh: true })
    },
  },
  categories: {
    async beforeWrite(w, next) {
      if (next.parentId === null || next.parentId === undefined) { next.level = 1; return }
      if (next.parentId === next.id) throw invalid('parentId', 'a category cannot be its own parent')
      const parent = await w.get('categories', next.parentId as number)
      if (!parent) throw invalid('parentId', `no categories record with id ${String(next.parentId)}`)
      if (parent.group !== next.group) throw invalid('parentId', 'parent must be in the same group')
      next.level = (parent.level as number) + 1
    },
  },
  orders: {
    beforeWrite(_w, next) {
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
