// The scope catalogue (DESIGN §5). Routes name the scope they need; capabilities publish
// this list, without the scopes of surfaces switched off by a flag.
import type { Settings } from '../settings.js'

export interface ScopeInfo {
  readonly scope: string
  readonly group: 'contract' | 'operations' | 'content' | 'commerce' | 'people' | 'integration' | 'webhooks' | 'control'
  readonly description: string
  /** Settings flag the surface depends on. */
  readonly flag?: 'enableAddressesApi' | 'enableUsersApi' | 'writesExperimental'
  readonly deprecatedFor?: string
}

const s = (scope: string, group: ScopeInfo['group'], description: string, extra: Partial<ScopeInfo> = {}): ScopeInfo =>
  ({ scope, group, description, ...extra })

export const scopeCatalog: readonly ScopeInfo[] = [
  s('health:read', 'operations', 'Liveness and version'),
  s('readiness:read', 'operations', 'Readiness verdict and checks'),
  s('auth:read', 'contract', 'Who am I: credential id, label, scopes'),
  s('adoption:read', 'operations', 'Credential adoption metrics'),
  s('metrics:read', 'operations', 'Counters, gauges and latency histograms'),
  s('incidents:read', 'operations', 'Open and recent incidents'),
  s('lifecycle:read', 'operations', 'Credential lifecycle and risk'),
  s('diagnostics:read', 'operations', 'Diagnostics bundle'),
  s('capabilities:read', 'contract', 'Capabilities descriptor'),
  s('openapi:read', 'contract', 'OpenAPI document'),
  s('schema:read', 'contract', 'Schema catalog'),
  s('sections:read', 'content', 'Sections and entry types'),
  s('changes:read', 'integration', 'Change feed (with each type\'s own read scope)'),
  s('templates:read', 'integration', 'Integration templates and starter packs'),
  s('products:read', 'commerce', 'Products'),
  s('variants:read', 'commerce', 'Variants'),
  s('subscriptions:read', 'commerce', 'Subscriptions'),
  s('transfers:read', 'commerce', 'Inventory transfers'),
  s('donations:read', 'commerce', 'Donations'),
  s('orders:read', 'commerce', 'Orders without personal data'),
  s('orders:read_sensitive', 'commerce', 'Order email, addresses and customer'),
  s('entries:read', 'content', 'Live entries'),
  s('entries:read_all_statuses', 'content', 'Entries in every status'),
  s('assets:read', 'content', 'Assets'),
  s('categories:read', 'content', 'Categories'),
  s('tags:read', 'content', 'Tags'),
  s('globalsets:read', 'content', 'Global sets'),
  s('contentblocks:read', 'content', 'Content blocks'),
  s('addresses:read', 'people', 'Addresses without personal lines', { flag: 'enableAddressesApi' }),
  s('addresses:read_sensitive', 'people', 'Address names, lines, organisation, phone', { flag: 'enableAddressesApi' }),
  s('users:read', 'people', 'Users without email', { flag: 'enableUsersApi' }),
  s('users:read_sensitive', 'people', 'User email', { flag: 'enableUsersApi' }),
  s('syncstate:read', 'integration', 'Sync checkpoints and lag'),
  s('syncstate:write', 'integration', 'Write sync checkpoints'),
  s('consumers:read', 'integration', 'Deprecated alias of syncstate:read', { deprecatedFor: 'syncstate:read' }),
  s('consumers:write', 'integration', 'Deprecated alias of syncstate:write', { deprecatedFor: 'syncstate:write' }),
  s('jobs:read', 'integration', 'Workflows assigned to the caller'),
  s('jobs:report', 'integration', 'Report workflow runs'),
  s('webhooks:dlq:read', 'webhooks', 'Dead-letter queue listing'),
  s('webhooks:dlq:replay', 'webhooks', 'Dead-letter replay'),
  s('control:policies:read', 'control', 'Read policies', { flag: 'writesExperimental' }),
  s('control:policies:write', 'control', 'Create and change policies', { flag: 'writesExperimental' }),
  s('control:approvals:read', 'control', 'Read approvals', { flag: 'writesExperimental' }),
  s('control:approvals:request', 'control', 'Request approvals', { flag: 'writesExperimental' }),
  s('control:approvals:decide', 'control', 'Approve or reject', { flag: 'writesExperimental' }),
  s('control:executions:read', 'control', 'Read executions', { flag: 'writesExperimental' }),
  s('control:actions:simulate', 'control', 'Simulate actions', { flag: 'writesExperimental' }),
  s('control:actions:execute', 'control', 'Execute actions', { flag: 'writesExperimental' }),
  s('control:audit:read', 'control', 'Read the audit log', { flag: 'writesExperimental' }),
]

const deprecatedAliases = new Map(scopeCatalog.filter((x) => x.deprecatedFor).map((x) => [x.scope, x.deprecatedFor as string]))

/** Scopes a holder effectively has: deprecated aliases grant their successors. */
export function effectiveScopes(granted: Iterable<string>): Set<string> {
  const out = new Set<string>()
  for (const g of granted) {
    out.add(g)
    const successor = deprecatedAliases.get(g)
    if (successor) out.add(successor)
  }
  return out
}

export function scopeEnabled(info: ScopeInfo, settings: Settings): boolean {
  return info.flag === undefined || settings[info.flag]
}

/** Every read scope (the default of the legacy token and of the demo token). */
export const readScopes: readonly string[] = scopeCatalog
  .filter((x) => (x.scope.endsWith(':read') || x.scope.endsWith(':read_sensitive') || x.scope.endsWith(':read_all_statuses'))
    && !x.deprecatedFor && x.group !== 'control')
  .map((x) => x.scope)

const known = new Set(scopeCatalog.map((x) => x.scope))
const PROVIDER_SCOPE = /^plugins:[a-z0-9-]+:[a-z0-9-]+:read$/

export function isKnownScope(scope: string): boolean {
  return known.has(scope) || PROVIDER_SCOPE.test(scope)
}
