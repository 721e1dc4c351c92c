// Governed commerce actions: a variant's price and stock, an order's status and refunds.
// Each re-checks its rule inside the transaction, because the stored values may have moved
// since the simulation or approval looked at them.
import { Type } from '@sinclair/typebox'
import { invalid } from '../../kernel/errors.js'
import type { StoreWriter } from '../../store/content-store.js'
import type { Doc } from '../../resources/hooks.js'
import { defineAction, maxLimit, type LimitResult, type Resolved } from './control-action.js'
import { round2 } from '../../kernel/numbers.js'
import { updateStep } from './record-steps.js'
import { LimitBreached } from '../steps.js'
import { ORDER_STATUSES } from '../../resources/commerce.js'
import { orderTransitionConflict } from '../../resources/order-status.js'

const Id = (description: string) => Type.Integer({ minimum: 1, description })

async function variantTarget(read: StoreWriter, variantId: number): Promise<Resolved> {
  const current = await read.get('variants', variantId)
  if (!current) throw invalid('payload.variantId', `no variants record with id ${variantId}`)
  return {
    target: { entity: { type: 'variants', id: String(variantId) }, scope: { kind: 'record', type: 'products', fields: { id: current.productId as number }, what: `product ${String(current.productId)}` } },
    current,
  }
}

async function orderTarget(read: StoreWriter, orderId: number): Promise<Resolved> {
  const current = await read.get('orders', orderId)
  if (!current) throw invalid('payload.orderId', `no orders record with id ${orderId}`)
  return { target: { entity: { type: 'orders', id: String(orderId) }, scope: { kind: 'none' } }, current }
}

interface SetPrice { readonly variantId: number; readonly price: number }

/** How far `p.price` moves the current price, against the policy's percentage. */
function priceChange(p: SetPrice, current: Doc | undefined, maxPercent: number | undefined): LimitResult {
  const old = (current?.price as number | undefined) ?? 0
  if (old === 0) {
    // No percentage of 0 is meaningful: a set limit refuses any change from a zero price.
    const ok = maxPercent === undefined || p.price === 0
    return { name: 'maxPriceChangePercent', source: 'policy', max: maxPercent ?? null, actual: null, ok, param: 'payload.price', problem: ok ? null : 'the current price is 0, so any change exceeds a percentage limit' }
  }
  return maxLimit('maxPriceChangePercent', 'payload.price', maxPercent, round2((Math.abs(p.price - old) / old) * 100), '%')
}

export const setPrice = defineAction<SetPrice>({
  type: 'variant.setPrice',
  summary: "Set a variant's price",
  payload: Type.Object({
    variantId: Id('The variant'),
    price: Type.Number({ minimum: 0, maximum: 1e9, description: 'The new price' }),
  }, { additionalProperties: false }),
  defaultRiskLevel: 'medium',
  boundary: 'products',
  reads: { family: 'variants', idParam: 'variantId' },
  resolve: (p, read) => variantTarget(read, p.variantId),
  limits: (p, current, limits) => [priceChange(p, current, limits.maxPriceChangePercent)],
  steps: [updateStep<SetPrice>('setPrice', 'variants', (c) => c.payload.variantId, (v, c) => {
    // Checked again here, against the price as locked now: concurrent executions each within
    // the limit of the price read before the transaction moved it 20 % under a 10 % limit.
    const change = priceChange(c.payload, v, c.limits.maxPriceChangePercent)
    if (!change.ok) throw new LimitBreached(change.problem ?? 'exceeds maxPriceChangePercent')
    return { price: c.payload.price }
  })],
  result(o) {
    const { id, previous, doc } = o.setPrice as { id: number; previous: Doc; doc: Doc }
    return { variantId: id, productId: doc.productId, previousPrice: previous.price, price: doc.price }
  },
})

interface AdjustStock { readonly variantId: number; readonly delta: number }

function stockFloor(p: AdjustStock, current: Doc | undefined, allowNegative: boolean): LimitResult {
  const stock = (current?.stock as number | undefined) ?? 0
  const next = stock + p.delta
  const ok = allowNegative || current?.hasUnlimitedStock === true || next >= 0
  return { name: 'stockFloor', source: 'action', max: null, actual: next, ok, param: 'payload.delta', problem: ok ? null : `stock would fall to ${next}; it may not go below 0 unless the policy sets allowNegativeStock` }
}

export const adjustStock = defineAction<AdjustStock>({
  type: 'variant.adjustStock',
  summary: "Add to or take from a variant's stock",
  payload: Type.Object({
    variantId: Id('The variant'),
    delta: Type.Integer({ minimum: -1e9, maximum: 1e9, description: 'Units to add (negative: to take away); not 0' }),
  }, { additionalProperties: false }),
  defaultRiskLevel: 'low',
  boundary: 'products',
  reads: { family: 'variants', idParam: 'variantId' },
  async resolve(p, read) {
    if (p.delta === 0) throw invalid('payload.delta', 'must not be 0')
    return variantTarget(read, p.variantId)
  },
  limits: (p, current, limits) => [
    maxLimit('maxStockAdjustment', 'payload.delta', limits.maxStockAdjustment, Math.abs(p.delta)),
    stockFloor(p, current, limits.allowNegativeStock === true),
  ],
  steps: [updateStep<AdjustStock>('adjustStock', 'variants', (c) => c.payload.variantId, (v, c) => {
    // Checked again here: the stock may have changed since the check before the transaction.
    const floor = stockFloor(c.payload, v, c.limits.allowNegativeStock === true)
    if (!floor.ok) throw new LimitBreached(floor.problem ?? 'stock would fall below 0')
    return { stock: (v.stock as number) + c.payload.delta }
  })],
  result(o) {
    const { id, previous, doc } = o.adjustStock as { id: number; previous: Doc; doc: Doc }
    return { variantId: id, productId: doc.productId, previousStock: previous.stock, stock: doc.stock }
  },
})

interface SetStatus { readonly orderId: number; readonly status: string }

export const setOrderStatus = defineAction<SetStatus>({
  type: 'order.setStatus',
  summary: "Set an order's status handle",
  payload: Type.Object({
    orderId: Id('The order'),
    status: Type.Union(ORDER_STATUSES.map((v) => Type.Literal(v)), { description: 'An order status (the orders declaration lists them)' }),
  }, { additionalProperties: false }),
  defaultRiskLevel: 'medium',
  boundary: null,
  reads: { family: 'orders', idParam: 'orderId' },
  // A status that may not follow the current one is a 409 before anything is evaluated or
  // recorded (simulation, approval requests and execution alike); the write checks it again.
  async resolve(p, read) {
    const resolved = await orderTarget(read, p.orderId)
    const conflict = orderTransitionConflict(p.orderId, (resolved.current?.status as string | undefined) ?? 'cart', p.status, 'payload.status')
    if (conflict) throw conflict
    return resolved
  },
  limits: () => [],
  steps: [updateStep<SetStatus>('setStatus', 'orders', (c) => c.payload.orderId, (_o, c) => ({ status: c.payload.status }))],
  result(o) {
    const { id, previous, doc } = o.setStatus as { id: number; previous: Doc; doc: Doc }
    return { orderId: id, previousStatus: previous.status, status: doc.status }
  },
})

interface Refund { readonly orderId: number; readonly amount: number; readonly reason?: string }

const refundable = (order: Doc | undefined) => round2(((order?.totalPaid as number | undefined) ?? 0) - ((order?.totalRefunded as number | undefined) ?? 0))

function refundLeft(p: Refund, order: Doc | undefined): LimitResult {
  const left = refundable(order)
  const ok = round2(p.amount) <= left
  return { name: 'refundable', source: 'action', max: left, actual: p.amount, ok, param: 'payload.amount', problem: ok ? null : `${p.amount} exceeds what is left to refund (${left} = totalPaid − totalRefunded)` }
}

export const refundOrder = defineAction<Refund>({
  type: 'order.refund',
  summary: "Record a refund on an order (adds to totalRefunded; never more than was paid and not yet refunded)",
  payload: Type.Object({
    orderId: Id('The order'),
    amount: Type.Number({ exclusiveMinimum: 0, maximum: 1e9, description: 'Amount refunded, in the order currency' }),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  }, { additionalProperties: false }),
  defaultRiskLevel: 'high',
  boundary: null,
  reads: { family: 'orders', idParam: 'orderId' },
  async resolve(p, read) {
    // Totals are kept in cents: less than one would refund nothing and still record a change.
    if (round2(p.amount) === 0) throw invalid('payload.amount', 'must be at least 0.01')
    return orderTarget(read, p.orderId)
  },
  limits: (p, current, limits) => [
    maxLimit('maxRefundAmount', 'payload.amount', limits.maxRefundAmount, p.amount),
    refundLeft(p, current),
  ],
  steps: [updateStep<Refund>('recordRefund', 'orders', (c) => c.payload.orderId, (order, c) => {
    // Checked again here: a concurrent refund may have used what was left.
    const left = refundLeft(c.payload, order)
    if (!left.ok) throw new LimitBreached(left.problem ?? 'exceeds what is left to refund')
    return { totalRefunded: round2((order.totalRefunded as number) + c.payload.amount) }
  })],
  result(o) {
    const { id, previous, doc } = o.recordRefund as { id: number; previous: Doc; doc: Doc }
    return { orderId: id, previousTotalRefunded: previous.totalRefunded, totalRefunded: doc.totalRefunded, refundable: refundable(doc), paidStatus: doc.paidStatus }
  },
})
