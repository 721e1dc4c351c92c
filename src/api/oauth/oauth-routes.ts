// The authorization server on the HTTP surface: everything under the issuer's path
// (/gatehouse/oauth: authorize, token, registration, revocation, its metadata) is handed to
// oidc-provider as it arrives, before Fastify parses a body (the library reads form bodies
// itself), and the discovery documents are published where clients look for them: RFC 8414's
// /.well-known/oauth-authorization-server/gatehouse/oauth and RFC 9728's protected resource
// metadata. Only while PLUGIN_GATEHOUSE_OAUTH_ENABLED is on.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ServerResponse } from 'node:http'
import { OAUTH_PATH } from '../../kernel/settings.js'
import type { Services } from '../../operations/services.js'
import { PRM_PATH, protectedResources, resourceMetadata } from './protected-resources.js'
import { storeErrors } from '../error-handler.js'
import { RETRY_AFTER_SECONDS, UNAVAILABLE_DESCRIPTION } from '../../oauth/authorization-server.js'

const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'OPTIONS', 'HEAD'] as const
/** The library's dynamic registration endpoint, under the issuer. */
const REGISTRATION_PATH = '/reg'
/** Client registrations one address may make a minute (an agent host registers once). */
export const REGISTRATIONS_PER_MINUTE = 20
/** Where the library publishes its metadata, under the issuer. */
const DISCOVERY = '/.well-known/openid-configuration'

// Nobody may frame the authorization server's pages (clickjacking a consent); none of its answers is cached.
function secure(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
  res.setHeader('X-Frame-Options', 'DENY')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.setHeader('Referrer-Policy', 'no-referrer')
}

export async function oauthRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const { settings, oauth } = services
  if (!settings.oauthEnabled) return
  const resources = protectedResources(settings)
  const store = storeErrors(services.database)

  /** Hands the request to the library as `path` (relative to the issuer); Fastify answers nothing itself. */
  const handOver = (path: (request: FastifyRequest) => string) => async (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack()
    const res = reply.raw
    res.setHeader('X-Request-Id', request.id)
    secure(res)
    try {
      // Registration needs no credential and every client is kept: unthrottled, one address
      // filled the database (1,000 clients with long metadata in 5 s).
      if (request.method === 'POST' && path(request).split('?')[0] === REGISTRATION_PATH) {
        const d = await services.rateLimiter.hit(`oauth-register:${request.ip}`, REGISTRATIONS_PER_MINUTE)
        if (!d.allowed) {
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(d.resetSeconds) })
            .end(JSON.stringify({ error: 'temporarily_unavailable', error_description: `too many client registrations from this address (${REGISTRATIONS_PER_MINUTE} a minute); retry in ${d.resetSeconds} seconds` }))
          return reply
        }
      }
      await oauth.handle(request.raw, res, path(request))
    } catch (err) {
      // The server starts at its first request, reading (on a fresh site, writing) its keys: a
      // database away then is a wait, as everywhere else, and the next request starts it again.
      if (store.isUnavailable(err)) {
        if (!res.headersSent) res.writeHead(503, { 'content-type': 'application/json', 'retry-after': String(RETRY_AFTER_SECONDS) }).end(JSON.stringify({ error: 'temporarily_unavailable', error_description: UNAVAILABLE_DESCRIPTION }))
        return reply
      }
      request.log.error({ err: { message: (err as Error).message, name: (err as Error).name }, requestId: request.id }, 'authorization server request failed')
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"server_error","error_description":"unexpected failure"}')
    }
    return reply
  }
  const relative = (request: FastifyRequest) => request.url.slice(OAUTH_PATH.length) || '/'
  const noop = async () => undefined
  app.route({ method: [...METHODS], url: OAUTH_PATH, onRequest: handOver(relative), handler: noop })
  app.route({ method: [...METHODS], url: `${OAUTH_PATH}/*`, onRequest: handOver(relative), handler: noop })
  // RFC 8414 §3: for an issuer with a path, the metadata is at the well-known prefix followed by that path.
  app.route({ method: ['GET', 'OPTIONS'], url: `/.well-known/oauth-authorization-server${OAUTH_PATH}`, onRequest: handOver(() => DISCOVERY), handler: noop })
  app.route({ method: ['GET', 'OPTIONS'], url: `${OAUTH_PATH}/.well-known/oauth-authorization-server`, onRequest: handOver(() => DISCOVERY), handler: noop })

  const scopes = () => oauth.offeredScopes().map((x) => x.scope)
  const publish = (reply: FastifyReply, doc: Record<string, unknown>) =>
    reply.header('Cache-Control', 'public, max-age=300').header('Access-Control-Allow-Origin', '*').type('application/json').send(doc)
  const mcp = () => resourceMetadata(settings, resources.mcp, 'Gatehouse MCP endpoint', scopes())
  app.get(PRM_PATH, async (_request, reply) => publish(reply, mcp()))
  app.get(PRM_PATH + new URL(resources.mcp.resource).pathname, async (_request, reply) => publish(reply, mcp()))
  app.get(PRM_PATH + new URL(resources.api.resource).pathname, async (_request, reply) =>
    publish(reply, resourceMetadata(settings, resources.api, 'Gatehouse machine API', scopes())))
}
