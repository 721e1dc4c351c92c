// The admin API plugin: operators' writes and credential management under
// /gatehouse/admin/v1. It is not part of the machine API (no scopes, not in its contract)
// but shares its envelope and error handler. Order of checks: admin authentication (401,
// also for unknown paths), then the route (404, 405 with Allow), then the input (400/413/415).
//
// Other parts add admin endpoints by writing a file that exports an `AdminRoutes` function
// and passing it in `routes` where src/app.ts calls `adminApi` (see docs/architecture.md).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError, invalid } from '../../kernel/errors.js'
import { NO_PARAMETERS } from '../../kernel/machine-route.js'
import type { Services } from '../../operations/services.js'
import { RouteTable, sendUnmatched } from '../route-table.js'
import { bodyTooDeep, MAX_JSON_DEPTH, nestsDeeperThan, inexactNumber, inexactNumberProblem } from '../json-body.js'
import { requestTextProblem } from '../request-text.js'
import { makeAdminAuthenticator, type AdminSessionResolver } from './admin-auth.js'
import { ADMIN_BASE_PATH, type AdminRouteContext, type AdminRoutes } from './admin-route.js'
import { recordRoutes } from './record-routes.js'
import { credentialRoutes } from './credential-routes.js'
import { adminAccountRoutes } from './admin-account-routes.js'

export interface AdminApiOptions {
  readonly services: Services
  /** Extra route files (webhook operator tools, approvals, …), registered after the built-in ones. */
  readonly routes?: readonly AdminRoutes[]
  /** The control panel's session check; without it only the admin token is accepted. */
  readonly sessionResolver?: AdminSessionResolver
}

/** Built-in route files: content records, credentials, admin accounts and their sessions. */
export const builtInAdminRoutes: readonly AdminRoutes[] = [recordRoutes, credentialRoutes, adminAccountRoutes]

export async function adminApi(app: FastifyInstance, opts: AdminApiOptions): Promise<void> {
  const authenticateAdmin = makeAdminAuthenticator({ adminToken: opts.services.settings.adminToken, managedTokens: opts.services.adminTokens, sessionResolver: opts.sessionResolver })
  const ctx: AdminRouteContext = { services: opts.services, authenticateAdmin }
  const limit = opts.services.settings.rateLimitPerMinute

  // Failed attempts count against the client address, as on the machine API, so the
  // admin token cannot be guessed at full speed.
  const authenticate = async (request: FastifyRequest) => {
    try {
      await authenticateAdmin(request)
    } catch (err) {
      if (limit > 0 && err instanceof ApiError && err.code === 'UNAUTHORIZED') {
        const d = await opts.services.rateLimiter.hit(`admin-ip:${request.ip}`, limit)
        if (!d.allowed) {
          throw new ApiError('RATE_LIMIT_EXCEEDED', `Too many failed admin authentications; retry in ${d.resetSeconds} seconds`, undefined, { 'Retry-After': String(d.resetSeconds) })
        }
      }
      throw err
    }
  }

  await app.register(async (admin) => {
    // Fed by onRoute, so it also sees the HEAD routes Fastify adds for GET ones.
    const table = new RouteTable()
    admin.addHook('onRoute', (route) => {
      table.add(route.url, Array.isArray(route.method) ? route.method : [route.method])
      // A route that declares no query parameters takes none (GET /entries/7?bogus=1 is a 400).
      if (!route.schema?.querystring) route.schema = { ...route.schema, querystring: NO_PARAMETERS }
    })
    admin.addHook('onRequest', async (request, reply) => {
      // Answers carry records with personal data and freshly issued tokens.
      reply.header('Cache-Control', 'no-store')
      await authenticate(request)
    })
    // Only JSON bodies: without this Fastify would also accept text/plain.
    admin.removeAllContentTypeParsers()
    admin.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      if (nestsDeeperThan(body as string, MAX_JSON_DEPTH)) return done(bodyTooDeep(), undefined)
      let parsed: unknown
      try {
        parsed = (body as string).length === 0 ? undefined : JSON.parse(body as string)
      } catch {
        return done(new ApiError('INVALID_REQUEST', 'Request body is not valid JSON', [{ param: '(body)', problem: 'invalid JSON' }]), undefined)
      }
      const inexact = inexactNumber(parsed)
      done(inexact === undefined ? null : inexactNumberProblem(inexact), inexact === undefined ? parsed : undefined)
    })
    // Every admin body (records, credentials, policies, decisions), path parameter and query
    // string (filter, q, credentialId…): no NUL characters or lone surrogates in any string,
    // named in the 400 like any other bad field.
    admin.addHook('preValidation', async (request) => {
      const bad = requestTextProblem(request)
      if (bad !== undefined) throw invalid(bad.param, bad.problem)
    })

    for (const routes of [...builtInAdminRoutes, ...(opts.routes ?? [])]) await routes(admin, ctx)

    admin.setNotFoundHandler((request, reply) =>
      sendUnmatched(request, reply, { table, authenticate, notFound: (method, path) => `No admin route ${method} ${path}` }))
  }, { prefix: ADMIN_BASE_PATH })
}

export { ADMIN_BASE_PATH, sendAdminData, type AdminRouteContext, type AdminRoutes } from './admin-route.js'
export { makeAdminAuthenticator, type AdminPrincipal, type AdminSessionResolver } from './admin-auth.js'
