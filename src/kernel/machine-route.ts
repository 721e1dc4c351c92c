// The route registry's entry type. Every machine-API route is declared as one of these;
// Fastify routes, validation, /capabilities, /openapi.json and /schema are built from them.
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { InputProblems } from './input-problems.js'
import type { ErrorCode } from './errors.js'
import type { Caller } from './caller.js'
import type { Settings } from './settings.js'

import type { FeatureFlag } from './settings.js'

export type { FeatureFlag }

export interface Pagination {
  readonly hasMore: boolean
  readonly nextCursor: string | null
}

/** A success answer: the envelope is added around it. */
export interface RouteResult {
  readonly data: unknown
  readonly pagination?: Pagination
  readonly meta?: Record<string, unknown>
}

/** A ready JSON text of `data` (fast path for lists: documents are spliced, not re-serialised). */
import type { JsonResult } from './json-result.js'

export type RawRouteResult = JsonResult

/** A body in a format of its own (Prometheus text exposition), sent as is, without the envelope. */
export interface TextRouteResult {
  readonly text: string
  readonly contentType: string
}

export interface RouteContext {
  readonly request: FastifyRequest
  readonly reply: FastifyReply
  readonly caller: Caller
  // Validated by the route's schemas before the handler runs (for a route that gathers
  // problems: without the members the query string's schema refused, named in `problems`).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly query: any
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any
  /** The input's problems so far; the handler adds its own and throws them all at once. */
  readonly problems: InputProblems
}

export interface MachineRoute {
  readonly method: 'GET' | 'POST'
  /** Path under the base path, e.g. `/products` or `/plugins/redirects/rules/:id`. */
  readonly path: string
  /** Stable key: `products.list`, `entries.show`, `changes.feed`; also the OpenAPI operationId. */
  readonly key: string
  readonly summary: string
  readonly tag: string
  /** Scope required to call it. */
  readonly scope: string
  /** Scopes that widen what it returns (sensitive fields, all statuses). */
  readonly optionalScopes?: readonly string[]
  readonly flag?: FeatureFlag
  readonly querystring?: TObject
  readonly params?: TObject
  readonly body?: TObject
  /**
   * Request headers the route reads, by the name clients send (`Idempotency-Key`); required
   * ones are listed as required. The plugin checks them before the handler runs
   * (src/api/request-headers.ts) and OpenAPI declares them as header parameters, so what the
   * server demands and what the document says come from this one declaration.
   */
  readonly headers?: TObject
  /** Schema of `data` in the success envelope. */
  readonly data: TSchema
  readonly list?: boolean
  /**
   * The name a list's items (or a detail's object) are filed under in the contract's
   * components; defaults to the tag's (`ProductsItem`). For lists whose tag holds other lists.
   */
  readonly itemName?: string
  readonly errors?: readonly ErrorCode[]
  readonly deprecated?: boolean
  readonly replacedBy?: string
  /**
   * When a deprecated route stops being served (an ISO date), sent as the `Sunset` header
   * (RFC 8594) beside `Deprecation` and `Link`; docs/api.md states the policy that sets it.
   */
  readonly sunset?: string
  /** Also served at the root (`/capabilities`), with the same auth and scope checks. */
  readonly rootAlias?: boolean
  /**
   * The answer depends only on content, the query string and the caller's scopes, so it
   * may be served from the page cache until the next write (src/api/page-cache.ts).
   */
  readonly cacheable?: boolean
  /** A cacheable answer also depends on the calling credential (the feed's own origins). */
  readonly cachePerCredential?: boolean
  /** Longer text for OpenAPI and the schema catalog (summary stays one line). */
  readonly description?: string
  /** Schema of `meta` in the envelope; lists default to `{ mode, … }`. */
  readonly meta?: TSchema
  /**
   * Whether `fields` may leave out any property of `data` (of each item, for lists); the
   * contract then lists no property as required. Defaults to true when the querystring has
   * `fields`; false where `fields` projects something nested (the change feed's snapshot).
   */
  readonly projectable?: boolean
  /**
   * Send `data` as the whole body, without the envelope: for documents that have a format of
   * their own (`/openapi.json`, which tools fetch and parse as an OpenAPI document).
   */
  readonly bare?: boolean
  /** Other media types a 200 answer may take, chosen by Accept and sent as a TextRouteResult (Prometheus text for /metrics). */
  readonly alternates?: readonly { readonly mediaType: string; readonly description: string }[]
  /**
   * A GET whose handler reads `problems`: a query string its schema refuses still reaches the
   * handler, without the refused members, so one 400 names those and the handler's own (a bad
   * `limit` and a bad `filter` together). Other routes answer the schema's problems first.
   */
  readonly gathersProblems?: boolean
  readonly handler: (ctx: RouteContext) => Promise<RouteResult | RawRouteResult | TextRouteResult>
}

export function routeEnabled(route: MachineRoute, settings: Settings): boolean {
  return route.flag === undefined || settings[route.flag] === true
}

export const BASE_PATH = '/gatehouse/v1'

/**
 * The query string of a route that takes no parameters: any is a 400 naming it, as on every
 * other route (a typo must not pass unnoticed, docs/decisions.md), not silently ignored.
 */
export const NO_PARAMETERS = Type.Object({}, { additionalProperties: false })

/** Largest accepted request body (DESIGN §4: 413 above 1 MiB). */
export const BODY_LIMIT_BYTES = 1024 * 1024
/** The longest path parameter the router passes to a route: its schema sets the real bound. */
export const MAX_PATH_PARAMETER = 2048

/**
 * The full path of a deprecated route's successor (`/gatehouse/v1/sync-state/lag`), written
 * the same way wherever it appears: the Link header, capabilities, the schema catalog, OpenAPI.
 */
/** The `Sunset` header value of a deprecated route (an HTTP date), or null. */
export function sunsetHeader(route: MachineRoute): string | null {
  return route.deprecated && route.sunset ? new Date(route.sunset).toUTCString() : null
}

export function successorPath(route: MachineRoute): string | null {
  return route.replacedBy ? BASE_PATH + route.replacedBy : null
}
