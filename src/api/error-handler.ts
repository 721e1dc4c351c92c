// One place renders every error: ApiError as its code; Fastify validation and body
// errors as 400/413/415; a lost database as 503; a full disk as 507; anything else as a fixed 500 message
// (logged in full, never sent: no stack, SQL or token reaches a body).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, errorCatalog, type ErrorCode, type ErrorDetail } from '../kernel/errors.js'
import type { Database, DialectAdapter } from '../store/database.js'
import type { StorageHealth } from '../store/storage-health.js'

export function sendError(reply: FastifyReply, request: FastifyRequest, err: ApiError): FastifyReply {
  if (err.headers) reply.headers(err.headers)
  const body: { error: { code: ErrorCode; message: string; details?: readonly ErrorDetail[] }; requestId: string } = {
    error: { code: err.code, message: err.message },
    requestId: request.id,
  }
  if (err.details && err.details.length > 0) body.error.details = err.details
  return reply.code(errorCatalog[err.code].status).type('application/json; charset=utf-8').send(body)
}

interface AjvError {
  instancePath?: string
  schemaPath?: string
  keyword: string
  params: Record<string, unknown>
  message?: string
}

/**
 * Enumerations are unions of literals (TypeBox `Type.Union([Type.Literal('a'), …])`), which
 * Ajv reports as one `const` failure per branch and then an `anyOf`. Where every failed branch
 * of an `anyOf` was a `const`, this gives the allowed values, by the value's path.
 */
function enumerations(errors: readonly AjvError[]): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>()
  for (const e of errors) {
    if (e.keyword !== 'anyOf' || e.schemaPath === undefined) continue
    const branches = errors.filter((b) => b !== e && b.instancePath === e.instancePath && b.schemaPath?.startsWith(e.schemaPath + '/'))
    if (branches.length > 0 && branches.every((b) => b.keyword === 'const')) out.set(e.instancePath ?? '', branches.map((b) => b.params.allowedValue))
  }
  return out
}

interface SchemaNode {
  readonly type?: unknown
  readonly properties?: Readonly<Record<string, SchemaNode>>
  readonly required?: readonly string[]
}

/** The schema of the property at a dotted path ('' is the root), when it is declared. */
function schemaAt(schema: SchemaNode | undefined, path: string): SchemaNode | undefined {
  let node = schema
  for (const key of path.split('.').filter(Boolean)) node = node?.properties?.[key]
  return node
}

/**
 * Turns Ajv errors into one detail per parameter; an enumerated one lists the allowed values
 * (`must be one of: updatedAt, -updatedAt, …`). `schema` is the validated part's schema
 * (the route's body or querystring): a missing object whose own members are required is
 * reported as each of those members (`metadata.source`, `metadata.agentId`…), so the caller
 * learns everything to send in one answer.
 */
export function validationDetails(errors: readonly AjvError[], context: string | undefined, schema?: SchemaNode): ErrorDetail[] {
  const byParam = new Map<string, string>()
  const allowed = enumerations(errors)
  for (const e of errors) {
    let param = (e.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.')
    let problem = e.message ?? e.keyword
    const values = allowed.get(e.instancePath ?? '')
    if (values) problem = `must be one of: ${values.join(', ')}`
    else if (e.keyword === 'const') problem = `must be ${String(e.params.allowedValue)}`
    if (e.keyword === 'required') {
      param = [param, String(e.params.missingProperty)].filter(Boolean).join('.')
      const members = schemaAt(schema, param)?.required ?? []
      if (members.length > 0) {
        for (const m of members) if (!byParam.has(`${param}.${m}`)) byParam.set(`${param}.${m}`, `must have required property '${m}'`)
        continue
      }
    }
    if (e.keyword === 'additionalProperties') {
      param = [param, String(e.params.additionalProperty)].filter(Boolean).join('.')
      problem = context === 'querystring' ? 'unknown parameter' : 'unknown property'
    }
    if (e.keyword === 'enum') problem = `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`
    if (param === '') param = context === 'body' ? '(body)' : '(query)'
    if (!byParam.has(param)) byParam.set(param, problem)
  }
  return [...byParam].map(([param, problem]) => ({ param, problem }))
}

/**
 * What the error handler asks of the store: which driver errors mean what (the adapter knows
 * each dialect's codes), and, when given, whom to tell of a full disk (store/storage-health.ts
 * logs it once and keeps it visible until a write succeeds).
 */
export interface StoreErrors extends Pick<DialectAdapter, 'isUnavailable' | 'isWriteConflict' | 'isStorageFull'> {
  readonly storage?: Pick<StorageHealth, 'noteError'>
}

/**
 * The store's error questions with the process's storage health, as the surfaces pass them. An
 * error whose cause is an outage is one: a library that wraps what the database threw (the
 * authorization server's `temporarily_unavailable`, src/oauth/) is answered as the outage it is.
 */
export const storeErrors = (database: Database, storage?: Pick<StorageHealth, 'noteError'>): StoreErrors => {
  const a = database.adapter
  const unavailable = (e: unknown) => a.isUnavailable(e) || (e instanceof Error && e.cause !== undefined && a.isUnavailable(e.cause))
  return { isUnavailable: unavailable, isWriteConflict: (e) => a.isWriteConflict(e), isStorageFull: (e) => a.isStorageFull(e), storage }
}

/** The schema a validation error was raised against: the route's body, querystring or params. */
function validatedSchema(request: FastifyRequest | undefined, context: string | undefined): SchemaNode | undefined {
  const schema = request?.routeOptions.schema as Record<string, SchemaNode | undefined> | undefined
  return context === undefined ? undefined : schema?.[context]
}

export function toApiError(err: unknown, request?: FastifyRequest, store?: StoreErrors): ApiError | undefined {
  if (err instanceof ApiError) return err
  const fe = err as FastifyError & { validation?: AjvError[]; validationContext?: string }
  if (fe.validation) {
    const details = validationDetails(fe.validation, fe.validationContext, validatedSchema(request, fe.validationContext))
    return new ApiError('INVALID_REQUEST', `Invalid ${fe.validationContext === 'body' ? 'body' : 'parameters'}: ${details.map((d) => d.param).join(', ')}`, details)
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': return new ApiError('PAYLOAD_TOO_LARGE', 'Request body is larger than 1 MiB')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be application/json')
    case 'FST_ERR_CTP_EMPTY_JSON_BODY': return new ApiError('INVALID_REQUEST', 'Request body is empty', [{ param: '(body)', problem: 'a JSON object is required' }])
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH': return new ApiError('INVALID_REQUEST', 'Content-Length does not match the body', [{ param: '(body)', problem: 'bad content-length' }])
  }
  if (fe.statusCode === 400 && (err instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY')) {
    return new ApiError('INVALID_REQUEST', 'Request body is not valid JSON', [{ param: '(body)', problem: 'invalid JSON' }])
  }
  if (store?.isStorageFull(err)) {
    store.storage?.noteError(err)
    return new ApiError('STORAGE_FULL', 'The database\'s disk is full, so nothing can be written; reads still work. An operator must free space', undefined, { 'Retry-After': '60' })
  }
  if (store?.isUnavailable(err)) return new ApiError('SERVICE_UNAVAILABLE', 'The database cannot be reached or did not answer in time', undefined, { 'Retry-After': '5' })
  if (store?.isWriteConflict(err)) return new ApiError('CONFLICT', 'A concurrent write conflicted with this one; retry the request', undefined, { 'Retry-After': '1' })
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new ApiError(fe.statusCode === 404 ? 'NOT_FOUND' : 'INVALID_REQUEST', 'Invalid request')
  }
  return undefined
}

export function installErrorHandler(app: FastifyInstance, store?: StoreErrors): void {
  app.setErrorHandler((err, request, reply) => {
    const apiError = toApiError(err, request, store)
    if (apiError) return sendError(reply, request, apiError)
    request.log.error({ err }, 'unhandled error')
    return sendError(reply, request, new ApiError('INTERNAL_ERROR', 'An unexpected error occurred; quote the requestId when reporting it'))
  })
}
