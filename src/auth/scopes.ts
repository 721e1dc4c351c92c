// The scope catalogue (DESIGN §5). Each family's scopes (read, sensitive, all statuses) come
// from its declaration; the scopes of the other parts' routes are listed here. Routes name the
// scope they need; capabilities publish the catalogue without the scopes of surfaces switched
// off by a flag.
import type { FeatureFlag, Settings } from '../kernel/settings.js'
import type { ResourceRegistry } from '../resources/index.js'

export interface ScopeInfo {
  readonly scope: string
  readonly group: 'contract' | 'operations' | 'content' | 'commerce' | 'people' | 'integration' | 'webhooks' | 'control' | 'providers'
  readonly description: string
  /** Settings flag the surface depends on. */
  readonly flag?: FeatureFlag
  readonly deprecatedFor?: string
}

const s = (scope: string, group: ScopeInfo['group'], description: string, extra: Partial<ScopeInfo> = {}): ScopeInfo =>
  ({ scope, group, description, ...extra })

/** Scopes of the contract and operations routes, listed before the families'. */
const leadingScopes: readonly ScopeInfo[] = [
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
  s('changes:read', 'integration', 'Change feed (with each type\'s own read scope)'),
  s('templates:read', 'integration', 'Integration templates and starter packs'),
]

/** Scopes of the integration, webhook and control routes, listed after the families'. */
const trailingScopes: readonly ScopeInfo[] = [
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

/** A family's scopes, from its declaration. */
function familyScopes(resources: ResourceRegistry): ScopeInfo[] {
  return resources.served.flatMap((r) => {
    const group = r.group ?? 'content'
    const out = [s(r.scope as string, group, r.sensitiveScope ? `${r.summary} without ${r.sensitiveKeys.join(', ')}` : r.summary, { flag: r.flag })]
    if (r.status?.otherStatusesScope) out.push(s(r.status.otherStatusesScope, group, `${r.summary} in every status, not only ${r.status.default ?? 'the default'}`, { flag: r.flag }))
    if (r.sensitiveScope) out.push(s(r.sensitiveScope, group, `${r.summary}: also ${r.sensitiveKeys.join(', ')}`, { flag: r.flag }))
    return out
  })
}

const PROVIDER_SCOPE = /^plugins:[a-z0-9-]+:[a-z0-9-]+:read$/

/** The catalogue of one app's scopes, built from its resource registry. */
export class ScopeCatalog {
  readonly entries: readonly ScopeInfo[]
  /** Every read scope (the default of the legacy token and of the demo token). */
  readonly readScopes: readonly string[]
  private readonly known: ReadonlySet<string>

  constructor(resources: ResourceRegistry) {
    this.entries = Object.freeze([...leadingScopes, ...familyScopes(resources), ...trailingScopes])
    this.known = new Set(this.entries.map((x) => x.scope))
    this.readScopes = this.entries
      .filter((x) => /:(read|read_sensitive|read_all_statuses)$/.test(x.scope) && !x.deprecatedFor && x.group !== 'control')
      .map((x) => x.scope)
  }

  isKnown(scope: string): boolean {
    return this.known.has(scope) || PROVIDER_SCOPE.test(scope)
  }

  /** What a credential may be given, as an error listing valid values names it. */
  names(): string[] {
    return [...this.entries.map((x) => x.scope), 'plugins:{plugin}:{resource}:read']
  }

  /** Scopes whose surface is switched on. */
  enabled(settings: Settings): ScopeInfo[] {
    return this.entries.filter((x) => x.flag === undefined || settings[x.flag])
  }
}

const deprecatedAliases = new Map([...leadingScopes, ...trailingScopes].filter((x) => x.deprecatedFor).map((x) => [x.scope, x.deprecatedFor as string]))

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

/**
 * The scope of one external provider resource (DESIGN §5). The catalogue is fixed per app;
 * these are offered (capabilities, the panel's account form) only while the provider is
 * loaded, but any such scope may be granted (isKnown), so credentials can be made before.
 */
export function providerScope(plugin: string, resource: string, description: string): ScopeInfo {
  return s(`plugins:${plugin}:${resource}:read`, 'providers', description)
}
