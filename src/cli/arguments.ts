// Option parsers shared by the commands; commander reports their errors with the option name
// the user typed (`option '--expires-in <duration>' argument '3x' is invalid…`), so values
// are checked here rather than by the service, which names its own fields (`expiresAt`).
import { InvalidArgumentError } from 'commander'
import { expiryFromDuration } from '../auth/credentials.js'
import { parseCidr } from '../auth/ip-allowlist.js'
import { ApiError } from '../kernel/errors.js'

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

/** `30d`, `12h`, `90m`: kept as typed; the expiry is computed when the command runs. */
export function duration(value: string): string {
  try {
    expiryFromDuration(value)
  } catch (err) {
    throw new InvalidArgumentError(err instanceof ApiError && err.details?.[0] ? err.details[0].problem : 'expected a duration like 30d, 12h or 90m')
  }
  return value.trim()
}

/** Comma-separated CIDR blocks (`10.0.0.0/8,203.0.113.7/32`); every bad one is named. */
export function cidrList(value: string): string[] {
  const list = commaList(value)
  const bad = list.filter((c) => !parseCidr(c))
  if (bad.length > 0) throw new InvalidArgumentError(`not a CIDR block: ${bad.join(', ')} (expected e.g. 10.0.0.0/8 or 203.0.113.7/32)`)
  return list
}

const INTEREST_ACTIONS = ['created', 'updated', 'deleted'] as const

/**
 * Webhook interests: `entry:created,product:*,order:deleted` → one entry per resource type
 * with its actions (`*` = all three). An empty string clears them. Resource types are the
 * families' event types, checked by the credential service against the declarations.
 */
export function webhookInterests(value: string): { resourceType: string; actions: typeof INTEREST_ACTIONS[number][] }[] {
  const byType = new Map<string, Set<typeof INTEREST_ACTIONS[number]>>()
  // Every bad item is named at once, not the first only.
  const problems: string[] = []
  for (const item of commaList(value)) {
    const [type, action] = item.split(':')
    if (action === undefined || !/^[a-z][a-z0-9-]*$/.test(type ?? '')) { problems.push(`"${item}": expected TYPE:ACTION, for example entry:created`); continue }
    if (action !== '*' && !(INTEREST_ACTIONS as readonly string[]).includes(action)) { problems.push(`"${item}": action must be created, updated, deleted or *`); continue }
    const set = byType.get(type) ?? new Set()
    for (const a of action === '*' ? INTEREST_ACTIONS : [action as typeof INTEREST_ACTIONS[number]]) set.add(a)
    byType.set(type, set)
  }
  if (problems.length > 0) throw new InvalidArgumentError(problems.join('; '))
  return [...byType].map(([resourceType, actions]) => ({ resourceType, actions: INTEREST_ACTIONS.filter((a) => actions.has(a)) }))
}
