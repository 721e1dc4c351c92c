// Which order status may follow which (docs/content-model.md, orders). A cart becomes an order
// when placed; nothing goes back to being a cart, and a refunded order is final. The write
// service checks every change (admin API, import, governed actions), so isCompleted and
// dateOrdered, which follow from the status, stay consistent with it.
import { ApiError } from '../kernel/errors.js'

export const ORDER_TRANSITIONS: Readonly<Record<string, readonly string[]>> = {
  cart: ['pending', 'processing', 'completed', 'cancelled'],
  pending: ['processing', 'shipped', 'completed', 'cancelled'],
  processing: ['pending', 'shipped', 'completed', 'cancelled', 'refunded'],
  shipped: ['completed', 'refunded'],
  completed: ['refunded'],
  cancelled: ['refunded'],
  refunded: [],
}

/**
 * A 409 naming the current and requested status when `to` may not follow `from`; null when it
 * may. `param`: the request member that asked for `to`, named in the error's details.
 */
export function orderTransitionConflict(id: unknown, from: string, to: string, param?: string): ApiError | null {
  if (from === to || (ORDER_TRANSITIONS[from] ?? []).includes(to)) return null
  const allowed = ORDER_TRANSITIONS[from] ?? []
  const refusal = `cannot become ${to}; from ${from} it can become ${allowed.length > 0 ? allowed.join(', ') : 'nothing (final)'}`
  return new ApiError('CONFLICT', `Order ${String(id)} is ${from} and ${refusal}`, param === undefined ? undefined : [{ param, problem: `${from} ${refusal}` }])
}
