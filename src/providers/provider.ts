// The provider interface (DESIGN §11): what a module listed in PLUGIN_GATEHOUSE_PROVIDERS
// exports by default. A provider only finds items; Gatehouse adds everything around them
// (authentication, scopes, rate limits, the envelope, `limit`, signed cursors, `fields`,
// `filter`, errors, request ids, metrics and the contract). docs/providers.md explains it.
import type { Static, TObject, TSchema } from '@sinclair/typebox'
import type { PathTest } from '../kernel/path-test.js'

export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue }

/** A JSON Schema object. TypeBox schemas are JSON Schema too; either may be given. */
export interface JsonSchemaObject {
  readonly [keyword: string]: unknown
}

/**
 * One parsed `filter` expression, handed to a resource that applies filters itself
 * (`appliesItself.filter`). `op: 'exact'` compares `value` with the JSON text of the value at
 * `path` (or a string's plain text); `op: 'like'` is a case-insensitive SQL LIKE pattern
 * (`%`, `_`, `\` escapes). `arrayAt` is where the path enters an array (any element may match).
 * `matchesFilter` (from the public entry) evaluates them as Gatehouse does.
 */
export type FilterTest = PathTest

export interface ProviderCaller {
  readonly credentialId: string
  /** The caller's effective scopes. */
  readonly scopes: ReadonlySet<string>
}

export interface ProviderLogger {
  debug(obj: object | string, msg?: string): void
  info(obj: object | string, msg?: string): void
  warn(obj: object | string, msg?: string): void
  error(obj: object | string, msg?: string): void
}

/** What each `list` and `get` call gets besides its input. */
export interface ProviderContext {
  readonly requestId: string
  readonly caller: ProviderCaller
  /** Aborted when Gatehouse stops waiting (the call deadline); pass it to fetch and the like. */
  readonly signal: AbortSignal
  readonly logger: ProviderLogger
}

export interface ListQuery<Params = Record<string, unknown>> {
  /** The resource's own query parameters, validated against its `params` schema (defaults applied). */
  readonly params: Params
  /** How many items Gatehouse wants from this call: an upper bound; return fewer only when that is all there is or your backend pages smaller. */
  readonly limit: number
  /** Where to start: undefined for the first page, else a `next` this resource returned before. */
  readonly position?: JsonValue
  /** Parsed `filter` expressions, only when the resource applies filters itself. */
  readonly filter?: readonly FilterTest[]
  /** Requested `fields` paths, only when the resource applies `fields` itself. */
  readonly fields?: readonly string[]
}

export interface ListPage<Item = unknown> {
  /** Items in a stable order: the same `position` must give the same items again. */
  readonly items: readonly Item[]
  /** Where the page after this one starts; leave it out (or null) on the last page. Kept in the signed cursor, so keep it small. */
  readonly next?: JsonValue
}

export interface ProviderResource<Item = unknown, Params = Record<string, unknown>> {
  /** Path segment and scope part: lowercase letters, digits and dashes. */
  readonly name: string
  /** A short noun phrase ("URL redirects"); route summaries are made from it. */
  readonly summary: string
  readonly description?: string
  /** Schema of one item: an object schema with `properties`. Items are checked against it. */
  readonly item: TSchema | JsonSchemaObject
  /** Schema of the resource's own list parameters: an object schema with `properties`. */
  readonly params?: TObject | JsonSchemaObject
  /** `filter` and `fields` are applied by Gatehouse unless the resource says it applies them. */
  readonly appliesItself?: { readonly filter?: boolean; readonly fields?: boolean }
  list(query: ListQuery<Params>, context: ProviderContext): Promise<ListPage<Item>>
  /** One item by id; undefined or null when there is none (404). */
  get(id: string, context: ProviderContext): Promise<Item | undefined | null>
}

export interface ProviderStartContext {
  /** The process environment: providers read their own settings from it. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The working directory Gatehouse started in (module paths are relative to it). */
  readonly cwd: string
  readonly logger: ProviderLogger
}

export interface Provider {
  /** Path segment and scope part: lowercase letters, digits and dashes. */
  readonly plugin: string
  readonly description?: string
  readonly resources: readonly ProviderResource[]
  /** Called once at start-up; throwing stops start-up with the message. */
  start?(context: ProviderStartContext): Promise<void> | void
  /** Called when Gatehouse shuts down. */
  stop?(): Promise<void> | void
  /**
   * Checked at start-up and then on a timer. Returning false or throwing marks the provider
   * unavailable: /readiness is degraded and its routes answer 503 PROVIDER_UNAVAILABLE until
   * a later check passes. The message of a ProviderUnavailableError is shown to operators.
   */
  available?(): Promise<boolean | void> | boolean | void
}

/**
 * Throw from `list`, `get` or `available` when the backend cannot answer: the request gets
 * 503 PROVIDER_UNAVAILABLE and the provider is marked unavailable until a check passes. The
 * message goes to readiness and diagnostics (operators), never to API clients.
 */
export class ProviderUnavailableError extends Error {
  readonly code = 'PROVIDER_UNAVAILABLE'
  override readonly name = 'ProviderUnavailableError'
}

/** Throw from `list` or `get` when a parameter is acceptable to the schema but not to the backend: 400 naming it. */
export class ProviderInputError extends Error {
  readonly code = 'PROVIDER_INPUT'
  override readonly name = 'ProviderInputError'
  constructor(readonly param: string, readonly problem: string) {
    super(`Invalid parameter: ${param}: ${problem}`)
  }
}

/** Gives a provider object its type (no run-time effect): `export default defineProvider({ … })`. */
export function defineProvider<P extends Provider>(provider: P): P {
  return provider
}

/** A resource whose `list` and `get` are typed by its TypeBox schemas. */
export interface TypedResource<I extends TSchema, P extends TObject> extends Omit<ProviderResource, 'item' | 'params' | 'list' | 'get'> {
  readonly item: I
  readonly params?: P
  list(query: ListQuery<Static<P>>, context: ProviderContext): Promise<ListPage<Static<I>>>
  get(id: string, context: ProviderContext): Promise<Static<I> | undefined | null>
}

/** Types a resource from its TypeBox item and parameter schemas. */
export function defineResource<I extends TSchema, P extends TObject = TObject>(resource: TypedResource<I, P>): ProviderResource {
  return resource as unknown as ProviderResource
}
