// Builds the Fastify instance from settings. Tests import this; `gatehouse serve` listens.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { pino, type Logger } from 'pino'
import type { Settings } from '../kernel/settings.js'
import { defaultRegistry, type ResourceRegistry } from '../resources/index.js'
import { openDatabase, type Database } from '../store/database.js'
import { migrateSchema } from '../store/schema-reconcile.js'
import { createServices } from './services.js'
import type { Services } from '../operations/services.js'
import { installErrorHandler, storeErrors } from '../api/error-handler.js'
import { clientErrorHandler, frameworkErrors, newRequestId } from '../api/framework-errors.js'
import { ApiError } from '../kernel/errors.js'
import { machineApi, makeAuthenticator, type MachineApiOptions } from '../api/machine-api.js'
import { BODY_LIMIT_BYTES, MAX_PATH_PARAMETER, type MachineRoute } from '../kernel/machine-route.js'
import { resourceRoutes } from '../api/resource-routes.js'
import { changeRoutes } from '../api/change-routes.js'
import { authRoutes } from '../api/auth-routes.js'
import { contractRoutes } from '../contract/contract-routes.js'
import { docsPage } from '../contract/docs-page.js'
import { rootPage } from '../panel/root-page.js'
import { syncStateRoutes } from '../api/integration/sync-state-routes.js'
import { Operations } from '../ops/operations.js'
import { opsRoutes } from '../api/ops/ops-routes.js'
import { templateRoutes } from '../api/ops/template-routes.js'
import { adminApi } from '../api/admin/admin-api.js'
import { dlqRoutes } from '../api/webhooks/dlq-routes.js'
import { webhookAdminRoutes } from '../api/webhooks/webhook-admin-routes.js'
import { controlRoutes } from '../api/control/control-routes.js'
import { controlAdminRoutes } from '../api/control/control-admin-routes.js'
import { jobRoutes } from '../api/jobs/job-routes.js'
import { jobAdminRoutes } from '../api/jobs/job-admin-routes.js'
import { deliveryAdminRoutes } from '../api/webhooks/delivery-admin-routes.js'
import { opsAdminRoutes } from '../api/ops/ops-admin-routes.js'
import { registerTestSink } from '../api/webhooks/test-sink.js'
import { sinkEnabled } from '../webhooks/sink-url.js'
import type { WorkerOptions } from '../webhooks/delivery-worker.js'
import { PanelSessions } from '../panel/panel-sessions.js'
import { controlPanel } from '../panel/panel-plugin.js'
import { checkReadiness, databaseReady } from '../operations/readiness.js'
import { validatorCompiler } from '../api/validator-compiler.js'
import { bodyTooDeep, inexactNumber, inexactNumberProblem, MAX_JSON_DEPTH, nestsDeeperThan } from '../api/json-body.js'
import { providerRoutes } from '../api/providers/provider-routes.js'
import type { ProviderTimings } from '../providers/provider-registry.js'
import { REQUEST_ID } from '../kernel/request-id.js'
import { oauthRoutes } from '../api/oauth/oauth-routes.js'
import { protectedResources } from '../api/oauth/protected-resources.js'
import { oauthAdminRoutes } from '../api/oauth/oauth-admin-routes.js'
import { closeConnectionsOnShutdown } from '../api/shutdown-connections.js'

export interface BuildOptions {
  readonly settings: Settings
  /** An open database; otherwise one is opened from settings.databaseUrl. */
  readonly database?: Database
  readonly logger?: Logger
  /** The resource families to serve (default: every family declared in `src/resources/`). */
  readonly resources?: ResourceRegistry
  /** Apply migrations and schema steps before serving (default true). */
  readonly migrate?: boolean
  /** Called with the new Fastify instance before any hook or route is added (tests add onRoute and onSend hooks). */
  readonly instrument?: (app: FastifyInstance) => void
  /**
   * The in-process webhook delivery worker: started when delivery is configured unless
   * this is false (`gatehouse serve` runs it; tests and scaled-out API processes may not).
   * Options tune it (tests use a short poll and retry base). Stopped by close().
   */
  readonly webhookWorker?: boolean | WorkerOptions
  /** How often provider availability is checked and how long a provider call may take (tests shorten them). */
  readonly providers?: ProviderTimings
}

export interface GatehouseApp {
  readonly app: FastifyInstance
  readonly services: Services
  /** Every machine-API route declared (enabled or not); the contract is built from it. */
  readonly routes: readonly MachineRoute[]
  close(): Promise<void>
}


/** How a serving process opens the store: every wait on the database bounded (docs/configuration.md). */
export function servingDatabase(settings: Settings, logger?: Logger): Database {
  return openDatabase(settings.databaseUrl, {
    connectTimeoutMs: settings.databaseConnectTimeoutMs,
    queryTimeoutMs: settings.databaseQueryTimeoutMs,
    busyTimeoutMs: settings.sqliteBusyTimeoutMs,
    onConnectionError: (err) => logger?.warn({ err }, 'database connection lost; the pool replaces it'),
  })
}

export async function buildApp(opts: BuildOptions): Promise<GatehouseApp> {
  const { settings } = opts
  const logger = opts.logger ?? pino({ level: settings.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] })
  const database = opts.database ?? servingDatabase(settings, logger)
  const resources = opts.resources ?? defaultRegistry
  if (opts.migrate !== false) {
    // Migrations may run longer than any request should: where the engine bounds statements
    // (PostgreSQL), they run on a connection of their own without the bound.
    if (opts.database || !database.adapter.statementTimeouts) await migrateSchema(database, resources.all)
    else {
      const unbounded = openDatabase(settings.databaseUrl, { poolSize: 1, connectTimeoutMs: settings.databaseConnectTimeoutMs, busyTimeoutMs: settings.sqliteBusyTimeoutMs })
      try { await migrateSchema(unbounded, resources.all) } finally { await unbounded.close() }
    }
  }
  const services = await createServices(settings, database, logger, { resources })
  try {
    // A provider module that is missing or invalid stops start-up here, naming the setting.
    await services.providers.load(opts.providers)
  } catch (err) {
    await services.credentials.close().catch(() => {})
    await services.rateLimiter.close().catch(() => {})
    if (!opts.database) await database.close().catch(() => {})
    throw err
  }

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // Per-request log lines cost throughput; failures are logged by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId()
    },
    // What Fastify and Node would answer with their own bodies gets the error envelope.
    frameworkErrors,
    clientErrorHandler,
    // Requests arriving while the server closes are refused by the onRequest hook below,
    // in the envelope, instead of by Fastify's built-in 503 body.
    return503OnClosing: false,
    // Slow clients (docs/configuration.md, HTTP timeouts): a client trickling its headers or
    // body, or holding an idle connection, is cut off instead of holding a socket for ever.
    // Node checks the header and request deadlines every connectionsCheckingInterval (30 s by
    // default, which let slow connections live far past their limit).
    connectionTimeout: settings.httpIdleTimeoutMs,
    keepAliveTimeout: settings.httpKeepAliveTimeoutMs,
    requestTimeout: settings.httpRequestTimeoutMs,
    http: {
      headersTimeout: Math.min(settings.httpHeadersTimeoutMs, settings.httpRequestTimeoutMs),
      requestTimeout: settings.httpRequestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(settings.httpHeadersTimeoutMs / 4))),
    },
    // `/gatehouse/v1/products/` is `/gatehouse/v1/products`, on every route (machine API, admin
    // API, panel): a trailing slash must not turn a GET into a 405 or a 404.
    // A path parameter is checked by its route's schema (a 400 naming it, after authentication),
    // not cut off by the router's own limit (100 characters by default: a valid 120-character
    // redirect id was a 414 before any check).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAMETER },
  })
  // Bodies are validated as typed (no coercion); query strings keep their text spellings.
  app.setValidatorCompiler(validatorCompiler())
  opts.instrument?.(app)
  let closing = false
  app.addHook('preClose', async () => { closing = true })
  closeConnectionsOnShutdown(app, { graceMs: settings.httpRequestTimeoutMs })
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id)
    if (!closing) return done()
    reply.header('Connection', 'close')
    done(new ApiError('SERVICE_UNAVAILABLE', 'The server is shutting down; retry on another instance', undefined, { 'Retry-After': '1' }))
  })
  installErrorHandler(app, storeErrors(database, services.storage))
  // Bodies are JSON only: without Fastify's default text/plain parser, any other media
  // type is answered 415 UNSUPPORTED_MEDIA_TYPE. JSON bodies nest at most MAX_JSON_DEPTH
  // levels, checked on the text before Fastify's own (prototype-poisoning-safe) parser runs.
  app.removeContentTypeParser('text/plain')
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // No route takes it (an unknown path, or a method the path does not have): the not-found
    // handlers answer 401, 404 or 405 in the order of checks (DESIGN §4), not a 400 for a body
    // nothing would read.
    if (request.is404) return done(null, undefined)
    if (nestsDeeperThan(body as string, MAX_JSON_DEPTH)) return done(bodyTooDeep(), undefined)
    return parseJson(request, body as string, (err, parsed) => {
      if (err) return done(err, undefined)
      const inexact = inexactNumber(parsed)
      return inexact === undefined ? done(null, parsed) : done(inexactNumberProblem(inexact), undefined)
    })
  })

  const ops = new Operations(services)
  const routes: MachineRoute[] = [
    ...authRoutes(),
    ...resourceRoutes(services),
    ...changeRoutes(services),
    ...syncStateRoutes(services),
    ...opsRoutes(ops),
    ...dlqRoutes(services),
    ...controlRoutes(services),
    ...providerRoutes(services),
    ...jobRoutes(services),
  ]
  routes.push(...contractRoutes(services, () => routes))
  routes.push(...templateRoutes(settings, () => routes, services.cursors))

  // With sign-in for agents on, both surfaces also take OAuth access tokens issued for them (docs/mcp.md).
  const protectedAt = settings.oauthEnabled ? protectedResources(settings) : undefined
  const machine: MachineApiOptions = {
    settings, credentials: services.credentials, rateLimiter: services.rateLimiter, pageCache: services.pageCache, cacheVariant: services.jobs.cacheVariant, routes, onAnswered: ops.onAnswered, onDenied: ops.onDenied,
    oauth: protectedAt ? services.oauth : undefined, resource: protectedAt?.api,
  }
  await machineApi(app, machine)
  await oauthRoutes(app, services)
  // The MCP endpoint admits exactly the callers the machine API admits (docs/mcp.md). Loaded
  // here, not at the top: every CLI command imports this file, and only a served app needs the
  // MCP SDK (it costs about as much start-up time as Fastify).
  const { mcpEndpoint } = await import('../mcp/mcp-endpoint.js')
  await mcpEndpoint(app, { services, routes, authenticate: makeAuthenticator(machine, protectedAt?.mcp), onAnswered: ops.onAnswered, onDenied: ops.onDenied, onToolCall: ops.onToolCall })
  // Incidents are re-evaluated on a timer; pending signal counts are written on close.
  ops.start()
  app.addHook('onClose', async () => { await ops.close() })
  services.providers.startChecks()
  app.addHook('onClose', async () => { await services.providers.close() })
  // Approval expiry runs on a timer while the control plane is on (never as a side effect of reads).
  if (settings.writesExperimental) {
    services.control.start()
    app.addHook('onClose', async () => { await services.control.close() })
  }
  // Runs whose lease ran out are abandoned on a timer in every serving process (safe across processes).
  services.jobs.start()
  app.addHook('onClose', async () => { await services.jobs.close() })
  // A control-panel session also authenticates the admin API (docs/control-panel.md).
  const panelSessions = new PanelSessions(database, settings)
  await adminApi(app, { services, routes: [webhookAdminRoutes, deliveryAdminRoutes, controlAdminRoutes, jobAdminRoutes, opsAdminRoutes, oauthAdminRoutes], sessionResolver: panelSessions.adminResolver })
  await controlPanel(app, { services, sessions: panelSessions, readiness: () => checkReadiness(services, ops.monitor), monitor: ops.monitor })
  // The dev test sink exists only in dev mode with the sink flag; otherwise its path is a 404.
  if (sinkEnabled(settings)) await registerTestSink(app, services)
  await docsPage(app)
  await rootPage(app)

  // Load-balancer probes: unauthenticated, no details.
  app.get('/livez', async (_req, reply) => reply.type('application/json').send('{"ok":true}'))
  app.get('/readyz', async (_req, reply) => (await databaseReady(database))
    ? reply.type('application/json').send('{"ok":true}')
    : reply.code(503).type('application/json').send('{"ok":false}'))

  // Other processes' commits drop cached pages and wake the delivery worker (PostgreSQL).
  await services.changes.start()
  if (opts.webhookWorker !== false) services.webhooks.startWorker(typeof opts.webhookWorker === 'object' ? opts.webhookWorker : {}, services.changes)

  return {
    app,
    services,
    routes,
    async close() {
      await app.close()
      await services.webhooks.stopWorker()
      await services.metricBuckets.close().catch(() => {})
      await services.changes.stop()
      await services.credentials.close().catch(() => {})
      await services.rateLimiter.close()
      if (!opts.database) await database.close()
    },
  }
}

