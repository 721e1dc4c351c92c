// The error taxonomy: one line per code. /capabilities publishes it and docs/api.md lists
// it; a drift test keeps the three in step.
export const errorCatalog = {
  INVALID_REQUEST: { status: 400, title: 'Bad query or body (JSON types as declared, at most 64 levels deep, no NUL or lone surrogates); details[] names each parameter' },
  UNAUTHORIZED: { status: 401, title: 'No token, unknown token, or an expired, revoked or paused credential' },
  FORBIDDEN: { status: 403, title: 'Missing scope, address not allowed, or integrationKey not the caller' },
  NOT_FOUND: { status: 404, title: 'Unknown route, record or id, or a route switched off by a flag' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not served on an existing path; see Allow' },
  CONFLICT: { status: 409, title: 'Already decided, already claimed, idempotency key reused with another body, or a policy change that relaxes control without an approval' },
  CURSOR_EXPIRED: { status: 410, title: 'Cursor points before the change log retention; restart from a checkpoint' },
  REQUEST_TIMEOUT: { status: 408, title: 'The request line, headers or body did not arrive within the server\'s time limits' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Body over 1 MiB' },
  URI_TOO_LONG: { status: 414, title: 'A path segment over 100 characters (an id or handle this long exists nowhere)' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'A body that is not application/json' },
  RATE_LIMIT_EXCEEDED: { status: 429, title: 'Too many requests; retry after Retry-After seconds' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request line and headers over 16 KiB' },
  INTERNAL_ERROR: { status: 500, title: 'Unexpected failure; no internals are disclosed' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'The database cannot be reached or did not answer within its timeouts; retry after Retry-After seconds' },
  PROVIDER_UNAVAILABLE: { status: 503, title: 'An external resource provider is unavailable; retry after Retry-After seconds' },
  STORAGE_FULL: { status: 507, title: 'The database\'s disk is full: nothing can be written until an operator frees space (reads still work); retry after Retry-After seconds' },
} as const satisfies Record<string, { status: number; title: string }>

export type ErrorCode = keyof typeof errorCatalog

export interface ErrorDetail {
  readonly param: string
  readonly problem: string
}

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: readonly ErrorDetail[],
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message)
  }

  get status(): number {
    return errorCatalog[this.code].status
  }
}

export const invalid = (param: string, problem: string) =>
  new ApiError('INVALID_REQUEST', `Invalid parameter: ${param}`, [{ param, problem }])

export const invalidMany = (details: readonly ErrorDetail[]) =>
  new ApiError('INVALID_REQUEST', `Invalid parameters: ${[...new Set(details.map((d) => d.param))].join(', ')}`, details)

/** A 400 naming each of `details` (at least one): worded as `invalid` for one, `invalidMany` for more. */
export const invalidEach = (details: readonly ErrorDetail[]) =>
  details.length === 1 ? invalid(details[0].param, details[0].problem) : invalidMany(details)

export const notFound = (what: string) => new ApiError('NOT_FOUND', what)

export const missingScope = (scope: string) => new ApiError('FORBIDDEN', `Missing required scope: ${scope}`)
