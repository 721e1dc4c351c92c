// The shape of a file of admin routes, and the success envelope they answer with. Kept
// apart from admin-api.ts so route files do not import the plugin that lists them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Services } from '../../operations/services.js'
import { envelopeText } from '../machine-api.js'
import type { RawRouteResult, RouteResult } from '../../kernel/machine-route.js'
import type { AdminPrincipal } from './admin-auth.js'

export const ADMIN_BASE_PATH = '/gatehouse/admin/v1'

/** What an admin route file receives; routes registered on `admin` are already authenticated. */
export interface AdminRouteContext {
  readonly services: Services
  /** The admin check every route under the plugin passes; exported for routes mounted elsewhere. */
  readonly authenticateAdmin: (request: FastifyRequest) => Promise<AdminPrincipal>
}

/** A file of admin routes: registers routes on `admin` with paths relative to ADMIN_BASE_PATH. */
export type AdminRoutes = (admin: FastifyInstance, ctx: AdminRouteContext) => void | Promise<void>

/** Sends `data` in the success envelope `{ ok: true, data, requestId }`. */
export function sendAdminData(reply: FastifyReply, request: FastifyRequest, data: unknown, status = 200): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(envelopeText({ data }, request.id))
}

/** Sends a page from a read operation (items or ready JSON text, pagination, meta) in the same envelope. */
export function sendAdminPage(reply: FastifyReply, request: FastifyRequest, page: RouteResult | RawRouteResult): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(envelopeText(page, request.id))
}
