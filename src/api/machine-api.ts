// The machine API plugin: registers every declared route under /gatehouse/v1 and runs
// the checks in the order DESIGN §4 fixes: authentication (401, also for unknown paths),
// then the route (404, 405 with Allow), then the scope (403), then the input (400).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, invalid, missingScope } from '../kernel/errors.js'
import type { CredentialService } from '../auth/credentials.js'
import type { Caller } from '../kernel/caller.js'
import type { RateDecision, RateLimiter } from '../auth/rate-limit.js'
import type { Settings } from '../kernel/settings.js'
import { sendError, toApiError } from './error-handler.js'
import { InputProblems } from '../kernel/input-problems.js'
import { RouteTable, sendUnmatched } from './route-table.js'
import type { PageCache } from '../operations/page-cache.js'
import { textProblem } from '../store/validation.js'
import { checkHeaders } from './request-headers.js'
import { REQUEST_ID } from '../kernel/request-id.js'
import { wrapItems } from '../kernel/json-result.js'
import { BASE_PATH, NO_PARAMETERS, routeEnabled, successorPath, sunsetHeader, type MachineRoute, type RawRouteResult, type RouteResult } from '../kernel/machine-route.js'

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller
  }
  interface FastifyContextConfig {
    machineRoute?: MachineRoute
  }
}

export interface MachineApiOptions {
  readonly settings: Settings
  readonly credentials: CredentialService
  readonly rateLimiter: RateLimiter
  readonly routes: readonly MachineRoute[]
  /** Serves cacheable routes' repeated requests until the next write. */
  readonly pageCache?: PageCache
  /**
   * What else, besides the caller's scopes and the query, a cacheable answer depends on for
   * this caller (the read boundary of an open workflow run); part of the page-cache key.
   */
  readonly cacheVariant?: (caller: Caller) => string | Promise<string>
  /**
   * Called for every answered machine request (metrics), with the key its route is counted
   * under (given, not read from `request.routeOptions`: Fastify builds and freezes a new
   * object on every read of that).
   */
  readonly onAnswered?: (request: FastifyRequest, reply: FastifyReply, elapsedMs: number, route: string) => void
  /** Called when authentication, scope or rate checks turn a request away (with the caller once known). */
  readonly onDenied?: (kind: 'auth' | 'scope' | 'rate', request: FastifyRequest, caller?: Caller) => void
  /** OAuth access tokens (src/oauth/), accepted beside credential tokens while sign-in for agents is on. */
  readonly oauth?: OAuthTokens
  /** The machine API as an OAuth protected resource (with `oauth`): what its tokens' audience must be. */
  readonly resource?: ProtectedResource
}

/** What the authenticator needs of the authorization server. */
export interface OAuthTokens {
  /** The caller an access token stands for on `resource`, or undefined when it is not one. */
  authenticate(token: string, resource: string, ip: string): Promise<Caller | undefined>
}

/** A protected resource (RFC 9728): its identifier and where its metadata is published. */
export interface ProtectedResource {
  readonly resource: string
  readonly metadataUrl: string
}

const bearer = (request: FastifyRequest): string | undefined => {
  const h = request.headers.authorization
  if (!h) return undefined
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h)
  return m ? m[1] : ''
}

/** Authenticates and applies the per-credential rate limit; sets X-RateLimit-* headers. */
export function makeAuthenticator(opts: MachineApiOptions, protectedResource: ProtectedResource | undefined = opts.resource) {
  const limit = opts.settings.rateLimitPerMinute
  const oauth = protectedResource ? opts.oauth : undefined
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<Caller> {
    let caller: Caller
    try {
      // A credential token has its prefix and a configured one is known to the credentials;
      // anything else may be an OAuth access token for this resource.
      caller = await opts.credentials.authenticate(bearer(request), request.ip, oauth && protectedResource
        ? (token) => oauth.authenticate(token, protectedResource.resource, request.ip) : undefined)
    } catch (caught) {
      opts.onDenied?.('auth', request)
      const err = protectedResource && oauth && caught instanceof ApiError && caught.code === 'UNAUTHORIZED' ? withResourceMetadata(caught, protectedResource, bearer(request) !== undefined) : caught
      // Failed attempts count against the client address, so guessing tokens is throttled;
      // the answer carries that address's budget like every other answer carries one.
      if (limit > 0 && err instanceof ApiError && (err.code === 'UNAUTHORIZED' || err.code === 'FORBIDDEN')) {
        const d = await opts.rateLimiter.hit(`ip:${request.ip}`, limit)
        setRateHeaders(reply, d.limit, d.remaining, d.resetSeconds)
        if (!d.allowed) throw rateLimited(d.resetSeconds, limit)
      }
      throw err
    }
    if (limit > 0) countAgainstLimit(opts, request, reply, caller, await opts.rateLimiter.hit(`cred:${caller.credentialId}`, limit))
    request.caller = caller
    return caller
  }
}

/** A credential's request counted: the budget's headers, or a 429 when it is spent. */
function countAgainstLimit(opts: MachineApiOptions, request: FastifyRequest, reply: FastifyReply, caller: Caller, d: RateDecision): void {
  setRateHeaders(reply, d.limit, d.remaining, d.resetSeconds)
  if (!d.allowed) {
    opts.onDenied?.('rate', request, caller)
    throw rateLimited(d.resetSeconds, d.limit)
  }
}

/**
 * The caller when that is known without waiting: a credential `knownCaller` answers for, with
 * its request counted in this process's rate counters (or no limit set). Undefined when
 * anything must be awaited (a lookup, Redis's counters) or refused: `authenticate` does that.
 */
function callerNow(opts: MachineApiOptions, request: FastifyRequest, reply: FastifyReply): Caller | undefined {
  const caller = opts.credentials.knownCaller(bearer(request), request.ip)
  if (caller === undefined) return undefined
  const limit = opts.settings.rateLimitPerMinute
  if (limit > 0) {
    const d = opts.rateLimiter.hitNow?.(`cred:${caller.credentialId}`, limit)
    if (d === undefined) return undefined
    countAgainstLimit(opts, request, reply, caller, d)
  }
  request.caller = caller
  return caller
}

/**
 * A 401 names where the resource's metadata is (RFC 9728 §5.1), so an OAuth client can find
 * the authorization server; with a token that did not pass, `error="invalid_token"` (RFC 6750 §3.1).
 */
function withResourceMetadata(err: ApiError, resource: ProtectedResource, tokenGiven: boolean): ApiError {
  const challenge = `Bearer realm="gatehouse"${tokenGiven ? ', error="invalid_token"' : ''}, resource_metadata="${resource.metadataUrl}"`
  return new ApiError(err.code, err.message, err.details, { ...err.headers, 'WWW-Authenticate': challenge })
}

function setRateHeaders(reply: FastifyReply, limit: number, remaining: number, reset: number): void {
  reply.header('X-RateLimit-Limit', String(limit))
  reply.header('X-RateLimit-Remaining', String(remaining))
  reply.header('X-RateLimit-Reset', String(reset))
}

function rateLimited(resetSeconds: number, limit: number): ApiError {
  return new ApiError('RATE_LIMIT_EXCEEDED', `Rate limit of ${limit} requests per minute exceeded`, undefined, {
    'Retry-After': String(resetSeconds),
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': String(resetSeconds),
  })
}

const FULL_READ = { mode: 'full' } as const

/** Builds the JSON text of the success envelope without re-serialising ready documents. */
export function envelopeText(result: RouteResult | RawRouteResult, requestId: string): string {
  let tail = ''
  const p = result.pagination
  // Written out rather than serialised: every list page has one (JSON.stringify of the
  // envelope's small objects was a microsecond or two of each page). Anything but the two
  // members as typed is serialised as it is.
  if (p) {
    const plain = typeof p.hasMore === 'boolean' && (typeof p.nextCursor === 'string' || p.nextCursor === null) && Object.keys(p).length === 2
    tail += ',"pagination":' + (plain ? '{"hasMore":' + p.hasMore + ',"nextCursor":' + (p.nextCursor === null ? 'null' : JSON.stringify(p.nextCursor)) + '}' : JSON.stringify(p))
  }
  // Every list says how it was read (DESIGN §4); one that reads no other way says `full`.
  const meta = result.meta ?? (p ? FULL_READ : undefined)
  if (meta) tail += ',"meta":' + (meta.mode === 'full' && Object.keys(meta).length === 1 ? '{"mode":"full"}' : JSON.stringify(meta))
  // A request id is REQUEST_ID's characters (kernel/request-id.ts), which need no escaping.
  tail += ',"requestId":' + (REQUEST_ID.test(requestId) ? '"' + requestId + '"' : JSON.stringify(requestId)) + '}'
  if ('rawItems' in result && result.rawItems) return wrapItems('{"ok":true,"data":', result.rawItems, tail)
  return '{"ok":true,"data":' + ('rawData' in result ? result.rawData : JSON.stringify(result.data ?? null)) + tail
}

const scopeKeys = new WeakMap<ReadonlySet<string>, string>()
/** A short name for each different set of scopes seen, by the set's sorted text (never reused). */
const scopeSetNames = new Map<string, string>()
let scopeSetsNamed = 0

/**
 * The caller's scopes as a cache-key part (what a cacheable answer may depend on): a short name
 * standing for the set, not its text. A token with every read scope made that text a few
 * hundred characters, copied and hashed into the page cache's key on every request.
 */
function scopeKey(caller: Caller): string {
  let key = scopeKeys.get(caller.scopes)
  if (key === undefined) {
    const text = [...caller.scopes].sort().join(',')
    key = scopeSetNames.get(text)
    if (key === undefined) {
      if (scopeSetNames.size >= 10_000) scopeSetNames.clear()
      scopeSetNames.set(text, (key = `s${++scopeSetsNamed}`))
    }
    scopeKeys.set(caller.scopes, key)
  }
  return key
}

export async function machineApi(app: FastifyInstance, opts: MachineApiOptions): Promise<void> {
  // Declared up front, so setting it on each request does not change the request's shape.
  if (!app.hasRequestDecorator('caller')) app.decorateRequest('caller', undefined)
  const authenticate = makeAuthenticator(opts)
  const enabled = opts.routes.filter((r) => routeEnabled(r, opts.settings))
  const table = new RouteTable({ headWithGet: true })

  const register = (prefix: string, route: MachineRoute) => {
    const url = prefix + route.path
    table.add(url, [route.method])
    const bodyOrPath = route.body !== undefined || route.params !== undefined
    // Text with NUL characters or lone surrogates cannot be stored or compared in
    // PostgreSQL: refused up front, naming the parameter or body member.
    const checkText = (request: FastifyRequest) => {
      if (route.headers) checkHeaders(route.headers, request)
      const bad = textProblem(request.query, '') ?? textProblem(request.params, '') ?? textProblem(request.body, '')
      if (bad !== undefined) throw invalid(bad.param, bad.problem)
    }
    /** The checks after authentication: the scope, then (without a body or path to wait for) the input's text. */
    const admit = (request: FastifyRequest, caller: Caller, done: (err?: Error) => void) => {
      try {
        if (!caller.scopes.has(route.scope)) {
          opts.onDenied?.('scope', request, caller)
          throw missingScope(route.scope)
        }
        if (!bodyOrPath) checkText(request)
      } catch (err) {
        return done(err as Error)
      }
      done()
    }
    app.route({
      method: route.method,
      url,
      schema: Object.fromEntries(Object.entries({ querystring: route.querystring ?? NO_PARAMETERS, body: route.body, params: route.params }).filter(([, v]) => v !== undefined)),
      config: { machineRoute: route },
      attachValidation: route.gathersProblems === true && route.method === 'GET',
      // Authentication and scope come before input validation (DESIGN §4 order of checks).
      // (Hooks take `done` and call it at once when nothing needs waiting for: an async hook
      // costs a promise and a turn of the microtask queue on every request.)
      onRequest: (request, reply, done) => {
        // Answers carry personal data (orders, whoami) and tokens' scopes: no cache may keep
        // them, errors included, as the admin API does.
        reply.header('Cache-Control', 'no-store')
        // Set before any check so error answers of a deprecated alias announce it too.
        if (route.deprecated && route.replacedBy) {
          reply.header('Deprecation', 'true')
          reply.header('Link', `<${successorPath(route)}>; rel="successor-version"`)
          const sunset = sunsetHeader(route)
          if (sunset) reply.header('Sunset', sunset)
        }
        let known: Caller | undefined
        try {
          known = callerNow(opts, request, reply)
        } catch (err) {
          return done(err as Error)
        }
        if (known !== undefined) return admit(request, known, done)
        authenticate(request, reply).then((caller) => admit(request, caller, done), done)
      },
      // A body is parsed after onRequest: its text is checked here, with the path's.
      preValidation: bodyOrPath ? (request, _reply, done) => {
        try {
          checkText(request)
        } catch (err) {
          return done(err as Error)
        }
        done()
      } : undefined,
      onResponse: (request, reply, done) => {
        // Fastify's clock starts as the route is found, before the first hook.
        opts.onAnswered?.(request, reply, reply.elapsedTime, route.key)
        done()
      },
      handler: async (request, reply) => {
        const caller = request.caller as Caller
        // Set only where the route gathers problems (attachValidation below).
        const refused = request.validationError
        const problems = new InputProblems(refused ? toApiError(refused, request)?.details : undefined)
        const query = refused ? withoutNamed(request.query as Record<string, unknown>, problems) : request.query
        const run = () => route.handler({ request, reply, caller, query, body: request.body, problems })
        // A use is a call that passed every check (DESIGN §10 times the first successful one).
        // Noted as the handler starts, so that a call reading the metrics counts itself, and
        // taken back when the handler refuses the input or a scope: such a call is no use.
        const use = refused ? undefined : opts.credentials.noteUse(caller.credentialId)
        let result: Awaited<ReturnType<typeof run>>
        try {
          if (refused) {
            result = await run()
            // A handler that gathers throws before it reads; should one not, the query is still refused.
            problems.throwIfAny()
          } else if (route.cacheable && opts.pageCache) {
            const variant = opts.cacheVariant?.(caller) ?? ''
            const key = `${route.key}|${scopeKey(caller)}|${typeof variant === 'string' ? variant : await variant}|${route.cachePerCredential ? caller.credentialId : ''}|${request.url.slice(request.url.indexOf('?') + 1 || request.url.length)}`
            result = await opts.pageCache.through(key, run)
          } else result = await run()
        } catch (err) {
          if (use && err instanceof ApiError && (err.code === 'INVALID_REQUEST' || err.code === 'FORBIDDEN')) opts.credentials.takeBackUse(use)
          throw err
        }
        // A format of its own (Prometheus text exposition), negotiated by the handler.
        if ('text' in result) return reply.type(result.contentType).send(result.text)
        const text = !route.bare ? envelopeText(result, request.id) : 'rawData' in result ? result.rawData : JSON.stringify(result.data ?? null)
        return reply.type('application/json; charset=utf-8').send(text)
      },
    })
  }

  const rootAliases = new Set<string>()
  for (const route of enabled) {
    register(BASE_PATH, route)
    if (route.rootAlias) {
      register('', route)
      rootAliases.add(route.path)
    }
  }

  const notFound = (method: string, path: string) => `No route ${method} ${path}`
  // Unknown paths under the base (and other methods on a root alias, which must behave like
  // the base path): authenticate first, then 405 (known path, other method) or 404.
  const answerUnmatched = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]
    if (!path.startsWith(BASE_PATH + '/') && path !== BASE_PATH && !rootAliases.has(path)) {
      return sendError(reply, request, new ApiError('NOT_FOUND', notFound(request.method, path)))
    }
    return sendUnmatched(request, reply, { table, authenticate, notFound })
  }
  app.setNotFoundHandler(answerUnmatched)
  // No route reads the body of such a request, so it is answered before the body is read: a
  // body over the limit is then a 401, 404 or 405 like any other (DESIGN §4's order of
  // checks), not a 413. Other plugins' not-found handlers (admin API, panel) keep theirs.
  // (A callback hook: an async one costs every request a promise and a turn of the microtask
  // queue. Having answered, it does not call `done`, as Fastify's hooks do to answer early.)
  app.addHook('onRequest', (request, reply, done) => {
    // `request.server` is the instance whose not-found handler answers: this one, not a plugin's.
    if (!request.is404 || request.server !== app) return done()
    // The body is not read: without this, Node would read it to the end to keep the connection.
    if (request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0) reply.header('Connection', 'close')
    answerUnmatched(request, reply).catch(done)
  })
}

/** `query` without the members a problem names, each by its exact name (query parameters are flat). */
function withoutNamed(query: Record<string, unknown>, problems: InputProblems): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([name]) => !problems.has(name)))
}
