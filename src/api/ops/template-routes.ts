// GET /templates and GET /starter-packs (templates:read). Steps are resolved against the
// route registry: schemaKey and scope come from the route that serves the step, and a
// template whose routes are missing or switched off by a flag is listed as unavailable
// rather than hidden, so a client can tell what to enable.
import { Type } from '@sinclair/typebox'
import { invalid } from '../../kernel/errors.js'
import { routeEnabled, type MachineRoute } from '../../kernel/machine-route.js'
import { pageInOrder, pageParams } from '../../kernel/list-page.js'
import type { CursorCodec } from '../../kernel/cursor.js'
import type { Settings } from '../../kernel/settings.js'
import { COMMON_ENV, templateCatalog, type IntegrationTemplate } from '../../ops/templates/catalog.js'
import { snippet } from '../../ops/templates/pack-files.js'

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()])
const ids = templateCatalog.map((t) => t.id)
// An enumeration, so an unknown id is a 400 listing the known ones like every enumerated parameter.
const TemplateId = Type.Union(ids.map((id) => Type.Literal(id)), { description: 'A template id (GET /templates lists them)' })

const EnvVarSchema = Type.Object({ name: Type.String(), required: Type.Boolean(), description: Type.String(), example: Type.String() }, { additionalProperties: false })

export const TemplateItem = Type.Object({
  id: Type.String(),
  displayName: Type.String(),
  intent: Type.String(),
  requiredScopes: Type.Array(Type.String()),
  optionalScopes: Type.Array(Type.String()),
  requiresExperimental: Type.Boolean(),
  available: Type.Boolean(),
  unavailableReason: Nullable(Type.String()),
  endpointSequence: Type.Array(Type.Object({
    method: Type.Union([Type.Literal('GET'), Type.Literal('POST')]),
    path: Type.String(),
    schemaKey: Nullable(Type.String({ description: 'Route key, as in /schema?endpoint= and the OpenAPI operationId' })),
    scope: Nullable(Type.String()),
    purpose: Type.String(),
  }, { additionalProperties: false })),
}, { additionalProperties: false })

export const StarterPackItem = Type.Object({
  templateId: Type.String(),
  displayName: Type.String(),
  available: Type.Boolean(),
  requiredScopes: Type.Array(Type.String()),
  env: Type.Array(EnvVarSchema),
  snippets: Type.Array(Type.Object({
    language: Type.Union([Type.Literal('curl'), Type.Literal('node'), Type.Literal('python')]),
    filename: Type.String(),
    run: Type.String({ description: 'Command that runs the snippet once saved under filename' }),
    content: Type.String(),
  }, { additionalProperties: false })),
}, { additionalProperties: false })

/** A template with its steps resolved against the registry. */
export function resolveTemplate(t: IntegrationTemplate, routes: readonly MachineRoute[], settings: Settings) {
  const steps = t.steps.map((s) => ({ step: s, route: routes.find((r) => r.method === s.method && r.path === s.path) }))
  const missing = steps.filter((x) => !x.route).map((x) => `${x.step.method} ${x.step.path}`)
  const off = steps.filter((x) => x.route && !routeEnabled(x.route, settings)).map((x) => x.route?.flag)
  const unavailableReason = missing.length > 0
    ? `not served by this installation: ${missing.join(', ')}`
    : off.length > 0 ? `switched off: needs ${[...new Set(off)].map((f) => (f === 'writesExperimental' ? 'PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL=true' : String(f))).join(', ')}` : null
  return {
    id: t.id,
    displayName: t.displayName,
    intent: t.intent,
    requiredScopes: [...t.requiredScopes],
    optionalScopes: [...t.optionalScopes],
    requiresExperimental: t.requiresExperimental,
    available: unavailableReason === null,
    unavailableReason,
    endpointSequence: steps.map(({ step, route }) => ({
      method: step.method, path: step.path, schemaKey: route?.key ?? null, scope: route?.scope ?? null, purpose: step.purpose,
    })),
  }
}

const RUN = { curl: (f: string) => `sh ${f}`, node: (f: string) => `node ${f}`, python: (f: string) => `python3 ${f}` } as const

export function starterPack(t: IntegrationTemplate, available: boolean) {
  return {
    templateId: t.id,
    displayName: t.displayName,
    available,
    requiredScopes: [...t.requiredScopes],
    env: [...COMMON_ENV, ...t.env],
    snippets: (['curl', 'node', 'python'] as const).map((language) => ({
      language, filename: t.snippets[language], run: RUN[language](t.snippets[language]), content: snippet(t.snippets[language]),
    })),
  }
}

function pick(param: string, id: string | undefined): readonly IntegrationTemplate[] {
  if (id === undefined) return templateCatalog
  const t = templateCatalog.find((x) => x.id === id)
  if (!t) throw invalid(param, `unknown template; valid: ${ids.join(', ')}`)
  return [t]
}

/**
 * `registry` returns the app's full route list (this route list included). Both lists page
 * in catalog order, keyed by template id, like every list.
 */
export function templateRoutes(settings: Settings, registry: () => readonly MachineRoute[], cursors: CursorCodec): MachineRoute[] {
  return [
    {
      method: 'GET', path: '/templates', key: 'templates.list', tag: 'integration', scope: 'templates:read',
      summary: 'Integration recipes: intent, scopes and the endpoint sequence with schema keys, in catalog order',
      querystring: Type.Object({ id: Type.Optional(TemplateId), ...pageParams }, { additionalProperties: false }),
      data: Type.Array(TemplateItem), list: true, itemName: 'TemplatesItem', errors: ['INVALID_REQUEST'],
      handler: async ({ query }) => {
        const page = pageInOrder(pick('id', query.id), (t) => t.id, { cursors, filters: { id: query.id ?? null }, cursor: query.cursor, limit: query.limit })
        return { data: page.data.map((t) => resolveTemplate(t, registry(), settings)), pagination: page.pagination, meta: { mode: 'full' } }
      },
    },
    {
      method: 'GET', path: '/starter-packs', key: 'starter-packs.list', tag: 'integration', scope: 'templates:read',
      summary: 'Runnable curl, Node and Python snippets per template, with the environment variables they read, in catalog order',
      querystring: Type.Object({ templateId: Type.Optional(TemplateId), ...pageParams }, { additionalProperties: false }),
      data: Type.Array(StarterPackItem), list: true, itemName: 'StarterPacksItem', errors: ['INVALID_REQUEST'],
      handler: async ({ query }) => {
        const page = pageInOrder(pick('templateId', query.templateId), (t) => t.id, { cursors, filters: { templateId: query.templateId ?? null }, cursor: query.cursor, limit: query.limit })
        return { data: page.data.map((t) => starterPack(t, resolveTemplate(t, registry(), settings).available)), pagination: page.pagination, meta: { mode: 'full' } }
      },
    },
  ]
}
