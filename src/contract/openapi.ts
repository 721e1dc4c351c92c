// GET /openapi.json: the OpenAPI 3.1 document, built from the route registry (the same
// declarations that register and validate the routes), for the routes the settings enable.
// It depends only on settings and the registry, so it is built once per app and served as
// ready text.
import { Type } from '@sinclair/typebox'
import { BASE_PATH, routeEnabled, successorPath, type MachineRoute } from '../kernel/machine-route.js'
import type { Settings } from '../kernel/settings.js'
import { errorCatalog, type ErrorCode } from '../kernel/errors.js'
import { ErrorEnvelopeSchema } from './envelopes.js'
import { COMPONENT_PREFIX, toJsonSchema, type JsonSchema } from './json-schema.js'
import { bodySchema, openapiPath, routeErrors, routeParameters, successSchema, type SchemaSink } from './route-contract.js'
import { REQUEST_ID } from '../kernel/request-id.js'
import { serviceInfo } from './service-info.js'
import { TOKEN_FORMAT } from './token-format.js'

/** Files shared schemas under components.schemas; identical schemas share one name. */
export class ComponentSink implements SchemaSink {
  readonly schemas: Record<string, JsonSchema> = {}
  private readonly byText = new Map<string, string>()

  ref(name: string, schema: JsonSchema): JsonSchema {
    const text = JSON.stringify(schema)
    let filed = this.byText.get(text)
    if (filed === undefined) {
      filed = name
      for (let i = 2; filed in this.schemas; i++) filed = `${name}${i}`
      this.schemas[filed] = schema
      this.byText.set(text, filed)
    }
    return { $ref: COMPONENT_PREFIX + filed }
  }
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` })

const HEADERS: Record<string, JsonSchema> = {
  'X-Request-Id': { description: 'Equals requestId in the body; a client\'s own 1–128 [A-Za-z0-9._:-] value is kept', required: true, schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests per minute allowed for the credential (when rate limiting is on)', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
  'WWW-Authenticate': { description: 'Bearer', schema: { type: 'string' } },
  Deprecation: { description: 'true on deprecated aliases', schema: { type: 'string' } },
  Link: { description: 'The successor of a deprecated alias (rel="successor-version")', schema: { type: 'string' } },
  Sunset: { description: 'When a deprecated alias stops being served (RFC 8594, an HTTP date)', schema: { type: 'string' } },
}

/**
 * Request headers every operation reads (src/app.ts): a client's own request id is kept.
 * Authorization is the security scheme's, and OpenAPI forbids declaring it as a parameter.
 */
const PARAMETERS: Record<string, JsonSchema> = {
  'X-Request-Id': {
    name: 'X-Request-Id', in: 'header', required: false,
    description: 'Your own request id, kept and echoed when it is 1–128 characters of A-Z a-z 0-9 . _ : -; otherwise the server makes one',
    schema: { type: 'string', minLength: 1, maxLength: 128, pattern: REQUEST_ID.source },
  },
}

const RATE_HEADERS = { 'X-RateLimit-Limit': header('X-RateLimit-Limit'), 'X-RateLimit-Remaining': header('X-RateLimit-Remaining'), 'X-RateLimit-Reset': header('X-RateLimit-Reset') }

/** Headers an error answer carries besides the request id and rate-limit headers. */
const ERROR_HEADERS: Partial<Record<ErrorCode, Record<string, JsonSchema>>> = {
  UNAUTHORIZED: { 'WWW-Authenticate': header('WWW-Authenticate') },
  RATE_LIMIT_EXCEEDED: { 'Retry-After': header('Retry-After') },
  SERVICE_UNAVAILABLE: { 'Retry-After': header('Retry-After') },
  STORAGE_FULL: { 'Retry-After': header('Retry-After') },
  PROVIDER_UNAVAILABLE: { 'Retry-After': header('Retry-After') },
  CONFLICT: { 'Retry-After': header('Retry-After') },
}

/** The reusable response of one error code, or of the codes that share a status on some operation, its body narrowed to them. */
function errorResponse(codes: readonly ErrorCode[]): JsonSchema {
  return {
    description: codes.map((c) => `${c}: ${errorCatalog[c].title}`).join('; '),
    // Error answers carry the rate-limit headers too: after authentication the credential's
    // budget, on a refused token the client address's (src/api/machine-api.ts).
    headers: Object.assign({ 'X-Request-Id': header('X-Request-Id'), ...RATE_HEADERS }, ...codes.map((c) => ERROR_HEADERS[c] ?? {})),
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: COMPONENT_PREFIX + 'ErrorEnvelope' },
            { type: 'object', properties: { error: { type: 'object', properties: { code: { type: 'string', ...(codes.length === 1 ? { const: codes[0] } : { enum: [...codes] }) } } } } },
          ],
        },
      },
    },
  }
}

/**
 * Files error responses as operations refer to them: one per code, or one per group of codes
 * that share a status on an operation (the database and a provider both answer 503). Only
 * referenced responses are filed, since an unreferenced component is a contract lint error:
 * 405 (a method the document does not list on a path) is never referenced, and the
 * capabilities taxonomy alone lists it; PROVIDER_UNAVAILABLE appears with a provider.
 */
class ErrorResponses {
  private readonly filed = new Map<string, readonly ErrorCode[]>()

  /** The responses of one route by status, as references. */
  refs(route: MachineRoute): Record<string, JsonSchema> {
    const byStatus = new Map<number, ErrorCode[]>()
    for (const code of routeErrors(route)) {
      const status = errorCatalog[code].status
      byStatus.set(status, [...(byStatus.get(status) ?? []), code])
    }
    return Object.fromEntries([...byStatus].map(([status, codes]) => {
      const name = codes.join('_OR_')
      this.filed.set(name, codes)
      return [status, { $ref: `#/components/responses/${name}` }]
    }))
  }

  /** The filed responses, in the catalogue's order. */
  components(): Record<string, JsonSchema> {
    const order = Object.keys(errorCatalog)
    return Object.fromEntries([...this.filed].sort(([, a], [, b]) => order.indexOf(a[0]) - order.indexOf(b[0]) || a.length - b.length)
      .map(([name, codes]) => [name, errorResponse(codes)]))
  }
}

function operation(route: MachineRoute, sink: ComponentSink, errors: ErrorResponses): JsonSchema {
  const notes = [
    route.description,
    route.optionalScopes?.length ? `Optional scopes that widen the answer: ${route.optionalScopes.join(', ')}.` : undefined,
    route.rootAlias ? `Also served at ${route.path} at the site root, with the same authentication and scope checks.` : undefined,
    route.deprecated ? `Deprecated${route.replacedBy ? `: use ${successorPath(route)}` : ''}.` : undefined,
  ].filter(Boolean)
  const parameters = [...routeParameters(route), ...Object.keys(PARAMETERS).map((name) => ({ $ref: `#/components/parameters/${name}` }))]
  const body = bodySchema(route)
  const responses: Record<string, JsonSchema> = {
    200: {
      description: route.summary,
      headers: {
        'X-Request-Id': header('X-Request-Id'), ...RATE_HEADERS,
        ...(route.deprecated ? { Deprecation: header('Deprecation'), Link: header('Link'), ...(route.sunset ? { Sunset: header('Sunset') } : {}) } : {}),
      },
      content: {
        'application/json': { schema: successSchema(route, sink) },
        ...Object.fromEntries((route.alternates ?? []).map((a) => [a.mediaType, { schema: { type: 'string', description: a.description } }])),
      },
    },
  }
  Object.assign(responses, errors.refs(route))
  return {
    operationId: route.key,
    summary: route.summary,
    ...(notes.length > 0 ? { description: notes.join('\n\n') } : {}),
    tags: [route.tag],
    // OpenAPI 3.1 lets a requirement name roles; here, the scope the token needs.
    security: [{ bearerAuth: [route.scope] }],
    parameters,
    ...(body ? { requestBody: { required: true, content: { 'application/json': { schema: body } } } } : {}),
    responses,
    ...(route.deprecated ? { deprecated: true } : {}),
    'x-gatehouse-scope': route.scope,
    'x-gatehouse-optional-scopes': [...(route.optionalScopes ?? [])],
    ...(route.flag ? { 'x-gatehouse-flag': route.flag } : {}),
    ...(route.replacedBy ? { 'x-gatehouse-replaced-by': successorPath(route) } : {}),
    ...(route.sunset ? { 'x-gatehouse-sunset': route.sunset } : {}),
    ...(route.rootAlias ? { 'x-gatehouse-root-alias': route.path } : {}),
  }
}

export function buildOpenapiDocument(routes: readonly MachineRoute[], settings: Settings): JsonSchema {
  const enabled = routes.filter((r) => routeEnabled(r, settings))
  const sink = new ComponentSink()
  const errors = new ErrorResponses()
  sink.ref('ErrorEnvelope', toJsonSchema(ErrorEnvelopeSchema))
  const paths: Record<string, Record<string, JsonSchema>> = {}
  for (const route of enabled) {
    const item = (paths[openapiPath(route.path)] ??= {})
    item[route.method.toLowerCase()] = operation(route, sink, errors)
  }
  const tags = [...new Set(enabled.map((r) => r.tag))].map((name) => ({ name }))
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gatehouse machine API',
      version: serviceInfo.version,
      description: 'Governed machine access to content and commerce data. Every operation needs a bearer token with the scope named in its security requirement. '
        + `GET ${BASE_PATH}/capabilities describes scopes, flags, limits and the error taxonomy; GET ${BASE_PATH}/schema gives each endpoint's schemas.`,
    },
    servers: [
      { url: settings.baseUrl + BASE_PATH, description: 'This deployment (PLUGIN_GATEHOUSE_BASE_URL)' },
      { url: BASE_PATH, description: 'Relative to the host that served this document' },
    ],
    security: [{ bearerAuth: [] }],
    tags,
    paths,
    components: {
      schemas: sink.schemas,
      responses: errors.components(),
      parameters: PARAMETERS,
      headers: HEADERS,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: TOKEN_FORMAT.description,
          description: `Authorization: Bearer <token>. Managed tokens match ${TOKEN_FORMAT.pattern}.`,
        },
      },
    },
  }
}

const cache = new WeakMap<Settings, WeakMap<readonly MachineRoute[], { readonly doc: JsonSchema; readonly text: string }>>()

/** The document for these routes and settings, built once: it cannot change while they don't. */
export function openapiDocument(routes: readonly MachineRoute[], settings: Settings): { readonly doc: JsonSchema; readonly text: string } {
  let bySettings = cache.get(settings)
  if (!bySettings) cache.set(settings, (bySettings = new WeakMap()))
  let built = bySettings.get(routes)
  if (!built) {
    const doc = buildOpenapiDocument(routes, settings)
    built = { doc, text: JSON.stringify(doc) }
    bySettings.set(routes, built)
  }
  return built
}

/** What /openapi.json answers, as its own route declares it (the document is sent bare). */
export const OpenapiDocumentSchema = Type.Object({
  openapi: Type.Literal('3.1.0'),
  info: Type.Object({ title: Type.String(), version: Type.String() }, { additionalProperties: true }),
  servers: Type.Array(Type.Object({ url: Type.String(), description: Type.Optional(Type.String()) })),
  paths: Type.Record(Type.String(), Type.Object({}, { additionalProperties: true })),
  components: Type.Object({}, { additionalProperties: true }),
}, { additionalProperties: true, description: 'An OpenAPI 3.1 document' })

export function openapiRoute(settings: Settings, getRoutes: () => readonly MachineRoute[]): MachineRoute {
  return {
    method: 'GET', path: '/openapi.json', key: 'openapi.document', tag: 'contract', scope: 'openapi:read',
    summary: 'OpenAPI 3.1 document of every enabled endpoint',
    description: 'Sent as the bare OpenAPI document, not inside the envelope, so generators and viewers read it directly.',
    rootAlias: true, bare: true, data: OpenapiDocumentSchema,
    handler: async () => ({ rawData: openapiDocument(getRoutes(), settings).text }),
  }
}
