// The registry of every resource type. Order here is the order of docs and contracts.
import type { Resource } from './declare.js'
import { assets, categories, contentBlocks, entries, entryDrafts, globalSets, sections, tags } from './content.js'
import { addresses, users } from './people.js'
import { donations, locations, orders, products, subscriptions, transfers, variants } from './commerce.js'

export type { Resource } from './declare.js'

export const allResources: readonly Resource[] = Object.freeze([
  products, variants, subscriptions, transfers, donations, orders,
  entries, assets, categories, tags, globalSets, addresses, contentBlocks, users,
  sections, locations, entryDrafts,
])

const byType = new Map(allResources.map((r) => [r.type, r]))
const byChangeType = new Map(allResources.map((r) => [r.changeType, r]))

export function resourceByType(type: string): Resource | undefined {
  return byType.get(type)
}

export function resourceByChangeType(changeType: string): Resource | undefined {
  return byChangeType.get(changeType)
}

/** Resources the machine API serves (those with a read scope). */
export const servedResources = allResources.filter((r) => r.scope !== undefined)

/** `/changes` `types` values, in the spec's order. */
export const changeFeedTypes = [
  'products', 'variants', 'subscriptions', 'transfers', 'donations', 'orders', 'entries', 'assets',
  'categories', 'tags', 'globalsets', 'addresses', 'contentblocks', 'users',
] as const

