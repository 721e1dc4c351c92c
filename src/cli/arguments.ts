// Option parsers shared by the commands; commander reports their errors with the option name.
import { InvalidArgumentError } from 'commander'

export function wholeNumber(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value)
    if (!/^\d+$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`)
    return n
  }
}

/** `a,b, c` → ['a', 'b', 'c'] */
export function commaList(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean)
}

const INTEREST_TYPES = ['entry', 'product', 'order'] as const
const INTEREST_ACTIONS = ['created', 'updated', 'deleted'] as const

/**
 * Webhook interests: `entry:created,product:*,order:deleted` → one entry per resource type
 * with its actions (`*` = all three). An empty string clears them.
 */
export function webhookInterests(value: string): { resourceType: typeof INTEREST_TYPES[number]; actions: typeof INTEREST_ACTIONS[number][] }[] {
  const byType = new Map<typeof INTEREST_TYPES[number], Set<typeof INTEREST_ACTIONS[number]>>()
  for (const item of commaList(value)) {
    const [type, action] = item.split(':')
    if (!(INTEREST_TYPES as readonly string[]).includes(type)) throw new InvalidArgumentError(`"${item}": resource type must be entry, product or order`)
    if (action !== '*' && !(INTEREST_ACTIONS as readonly string[]).includes(action)) throw new InvalidArgumentError(`"${item}": action must be created, updated, deleted or *`)
    const set = byType.get(type as typeof INTEREST_TYPES[number]) ?? new Set()
    for (const a of action === '*' ? INTEREST_ACTIONS : [action as typeof INTEREST_ACTIONS[number]]) set.add(a)
    byType.set(type as typeof INTEREST_TYPES[number], set)
  }
  return [...byType].map(([resourceType, actions]) => ({ resourceType, actions: INTEREST_ACTIONS.filter((a) => actions.has(a)) }))
}
