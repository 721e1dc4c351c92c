// GET /capabilities: what this deployment offers and what the caller may use, computed from
// the route registry, the scope catalogue, the error taxonomy and the settings. Surfaces
// switched off by a flag are absent, and so are their scopes.
import { Type, type Static } from '@sinclair/typebox'
import { BASE_PATH, BODY_LIMIT_BYTES, routeEnabled, successorPath, type FeatureFlag, type MachineRoute } from '../kernel/machine-route.js'
import { commonListParams } from '../operations/record-inputs.js'
import { MAX_FIELDS } from '../kernel/projection.js'
import { MAX_FILTERS } from '../kernel/filter.js'
import type { ScopeCatalog, ScopeInfo } from '../auth/scopes.js'
import type { Settings } from '../kernel/settings.js'
import type { Caller } from '../kernel/caller.js'
import { errorCatalog, type ErrorCode } from '../kernel/errors.js'
import { MCP_PATH, serviceInfo } from './service-info.js'
import { TOKEN_FORMAT } from './token-format.js'
import { DOCS_PATH } from './docs-page.js'

/** Every feature flag with its setting; a Record so a new flag cannot be left out. */
export const featureFlags: Readonly<Record<FeatureFlag, { readonly setting: string; readonly description: string }>> = {
  enableAddressesApi: { setting: 'PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API', description: 'Addresses list and detail endpoints' },
  enableUsersApi: { setting: 'PLUGIN_GATEHOUSE_ENABLE_USERS_API', description: 'Users list and detail endpoints' },
  writesExperimental: { setting: 'PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL', description: 'Governed control-plane endpoints under /control' },
  webhookTestSink: { setting: 'PLUGIN_GATEHOUSE_WEBHOOK_TEST_SINK', description: 'Development-only webhook test sink' },
}

const Str = Type.String
const Endpoint = Type.Object({
  key: Str(), method: Type.Union([Type.Literal('GET'), Type.Literal('POST')]), path: Str(), summary: Str(), tag: Str(),
  scope: Str(), optionalScopes: Type.Array(Str()), list: Type.Boolean(), deprecated: Type.Boolean(),
  replacedBy: Type.Union([Str(), Type.Null()]), rootAlias: Type.Union([Str(), Type.Null()]),
}, { additionalProperties: false })

export const CapabilitiesData = Type.Object({
  service: Type.Object({ name: Str(), version: Str() }, { additionalProperties: false }),
  basePath: Str(),
  baseUrl: Str({ description: 'Absolute address of the base path' }),
  discovery: Type.Object({
    capabilities: Str(), openapi: Str(), schema: Str(), whoami: Str(), docs: Str({ description: 'Interactive reference page (HTML)' }),
    mcp: Str({ description: 'Model Context Protocol endpoint (Streamable HTTP) for AI agents: the same bearer token, scopes and governance as this API' }),
    aliases: Type.Array(Type.Object({ path: Str(), target: Str() }, { additionalProperties: false })),
  }, { additionalProperties: false }),
  authentication: Type.Object({
    methods: Type.Array(Type.Literal('bearer')),
    header: Type.Literal('Authorization'),
    scheme: Type.Literal('Bearer'),
    tokenFormat: Type.Object({ prefix: Str(), pattern: Str(), description: Str() }, { additionalProperties: false }),
  }, { additionalProperties: false }),
  caller: Type.Object({ credentialId: Str(), grantedScopes: Type.Array(Str()) }, { additionalProperties: false }),
  scopes: Type.Array(Type.Object({
    scope: Str(), group: Str(), description: Str(), deprecatedFor: Type.Union([Str(), Type.Null()]),
  }, { additionalProperties: false })),
  flags: Type.Array(Type.Object({ name: Str(), setting: Str(), description: Str(), enabled: Type.Boolean() }, { additionalProperties: false })),
  limits: Type.Object({
    limit: Type.Object({ minimum: Type.Integer(), maximum: Type.Integer(), default: Type.Integer() }, { additionalProperties: false }),
    fieldsMaxPaths: Type.Integer(),
    filterMaxExpressions: Type.Integer(),
    bodyMaxBytes: Type.Integer(),
    rateLimitPerMinute: Type.Integer({ description: 'Per credential; 0 means off' }),
    changesRetentionDays: Type.Integer({ description: 'How long the change log keeps changes; an older feed position answers 410 CURSOR_EXPIRED (GET /changes/position names the oldest position to resume from)' }),
  }, { additionalProperties: false }),
  errors: Type.Array(Type.Object({ code: Str(), status: Type.Integer(), meaning: Str() }, { additionalProperties: false })),
  endpoints: Type.Array(Endpoint),
}, { additionalProperties: false })

export type Capabilities = Static<typeof CapabilitiesData>

/**
 * Scopes offered now: the catalogue's scopes that an enabled route uses (a scope whose surface
 * is off or not built is not advertised), deprecated aliases of those, the scopes of loaded
 * providers' resources, plus any scope an enabled route needs that none of these names.
 */
export function offeredScopes(catalog: ScopeCatalog, routes: readonly MachineRoute[], settings: Settings, providerScopes: readonly ScopeInfo[] = []): ScopeInfo[] {
  const enabled = routes.filter((x) => routeEnabled(x, settings))
  const used = new Set(enabled.flatMap((r) => [r.scope, ...(r.optionalScopes ?? [])]))
  const offered = [...catalog.enabled(settings).filter((s) => used.has(s.scope) || (s.deprecatedFor !== undefined && used.has(s.deprecatedFor))), ...providerScopes]
  const named = new Set(offered.map((s) => s.scope))
  for (const r of enabled) {
    for (const scope of [r.scope, ...(r.optionalScopes ?? [])]) {
      if (named.has(scope)) continue
      named.add(scope)
      offered.push({ scope, group: 'integration', description: r.summary })
    }
  }
  return offered
}

/** Everything but the caller: fixed for an app, so built once. */
function staticPart(catalog: ScopeCatalog, routes: readonly MachineRoute[], settings: Settings, providerScopes: readonly ScopeInfo[]): Omit<Capabilities, 'caller'> {
  const enabled = routes.filter((r) => routeEnabled(r, settings))
  const limit = commonListParams.limit
  return {
    service: { ...serviceInfo },
    basePath: BASE_PATH,
    baseUrl: settings.baseUrl + BASE_PATH,
    discovery: {
      capabilities: `${BASE_PATH}/capabilities`,
      openapi: `${BASE_PATH}/openapi.json`,
      schema: `${BASE_PATH}/schema`,
      whoami: `${BASE_PATH}/auth/whoami`,
      docs: DOCS_PATH,
      mcp: MCP_PATH,
      aliases: enabled.filter((r) => r.rootAlias).map((r) => ({ path: r.path, target: BASE_PATH + r.path })),
    },
    authentication: { methods: ['bearer'], header: 'Authorization', scheme: 'Bearer', tokenFormat: { ...TOKEN_FORMAT } },
    scopes: offeredScopes(catalog, routes, settings, providerScopes).map((s) => ({ scope: s.scope, group: s.group, description: s.description, deprecatedFor: s.deprecatedFor ?? null })),
    flags: (Object.keys(featureFlags) as FeatureFlag[]).map((name) => ({ name, ...featureFlags[name], enabled: settings[name] === true })),
    limits: {
      limit: { minimum: limit.minimum as number, maximum: limit.maximum as number, default: limit.default as number },
      fieldsMaxPaths: MAX_FIELDS,
      filterMaxExpressions: MAX_FILTERS,
      bodyMaxBytes: BODY_LIMIT_BYTES,
      rateLimitPerMinute: settings.rateLimitPerMinute,
      changesRetentionDays: settings.changesRetentionDays,
    },
    errors: (Object.keys(errorCatalog) as ErrorCode[]).map((code) => ({ code, status: errorCatalog[code].status, meaning: errorCatalog[code].title })),
    endpoints: enabled.map((r) => ({
      key: r.key, method: r.method, path: BASE_PATH + r.path, summary: r.summary, tag: r.tag,
      scope: r.scope, optionalScopes: [...(r.optionalScopes ?? [])], list: r.list === true, deprecated: r.deprecated === true,
      replacedBy: successorPath(r), rootAlias: r.rootAlias ? r.path : null,
    })),
  }
}

/** The capabilities document for a caller; everything else in it is fixed per app, so built once. */
export function capabilitiesFor(catalog: ScopeCatalog, settings: Settings, getRoutes: () => readonly MachineRoute[], providerScopes: readonly ScopeInfo[] = []): (caller: Caller) => Capabilities {
  let fixed: Omit<Capabilities, 'caller'> | undefined
  return (caller) => {
    fixed ??= staticPart(catalog, getRoutes(), settings, providerScopes)
    const { service, basePath, baseUrl, discovery, authentication, ...rest } = fixed
    return {
      service, basePath, baseUrl, discovery, authentication,
      caller: { credentialId: caller.credentialId, grantedScopes: [...caller.grantedScopes] },
      ...rest,
    }
  }
}

export function capabilitiesRoute(catalog: ScopeCatalog, settings: Settings, getRoutes: () => readonly MachineRoute[], providerScopes: readonly ScopeInfo[] = []): MachineRoute {
  const describe = capabilitiesFor(catalog, settings, getRoutes, providerScopes)
  return {
    method: 'GET', path: '/capabilities', key: 'capabilities.describe', tag: 'contract', scope: 'capabilities:read',
    summary: 'Service, authentication, scopes, flags, limits, error taxonomy and endpoints',
    rootAlias: true, data: CapabilitiesData,
    handler: async ({ caller }) => ({ data: describe(caller) }),
  }
}
