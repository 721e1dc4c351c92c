// Every resource family this folder declares. Order here is the order of docs and contracts.
// Code outside this folder reads families through a `ResourceRegistry` (`services.resources`),
// never through this list, so an app built with other families serves exactly those.
import type { Resource } from './declare.js'
import { assets, categories, contentBlocks, entries, entryDrafts, globalSets, sections, tags } from './content.js'
import { addresses, users } from './people.js'
import { donations, locations, orders, products, subscriptions, transfers, variants } from './commerce.js'
import { createRegistry } from './registry.js'

export type { Resource } from './declare.js'
export type { ResourceRegistry } from './registry.js'
export { createRegistry } from './registry.js'

export const allResources: readonly Resource[] = Object.freeze([
  products, variants, subscriptions, transfers, donations, orders,
  entries, assets, categories, tags, globalSets, addresses, contentBlocks, users,
  sections, locations, entryDrafts,
])

/** The registry of the families declared here: what `buildApp` serves unless told otherwise. */
export const defaultRegistry = createRegistry(allResources)
