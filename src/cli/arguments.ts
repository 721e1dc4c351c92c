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

const INTEREST_ACTIONS = ['created', 'updated', 'deleted'] as const

/**
 * Webhook interests: `entry:created,product:*,order:deleted` → one entry per resource type
 * with its actions (`*` = all three). An empty string clears them. Resource types are the
 * families' event types, checked by the credential service against the declarations.
 */
export function webhookInterests(value: string): { resourceType: string; actions: typeof INTEREST_ACTIONS[number][] }[] {
  const byType = new Map<string, Set<typeof INTEREST_ACTIONS[number]>>()
  for (const item of commaList(value)) {
    const [type, action] = item.split(':')
    if (!/^[a-z][a-z0-9-]*$/.test(type ?? '')) throw new InvalidArgumentError(`"${item}": expected TYPE:ACTION, for example entry:created`)
    if (action !== '*' && !(INTEREST_ACTIONS as readonly string[]).includes(action)) throw new InvalidArgumentError(`"${item}": action must be created, updated, deleted or *`)
    const set = byType.get(type) ?? new Set()
    for (const a of action === '*' ? INTEREST_ACTIONS : [action as typeof INTEREST_ACTIONS[number]]) set.add(a)
    byType.set(type, set)
  }
  return [...byType].map(([resourceType, actions]) => ({ resourceType, actions: INTEREST_ACTIONS.filter((a) => actions.has(a)) }))
}
