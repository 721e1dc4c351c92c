// Operators' webhook endpoints under /gatehouse/admin/v1/webhooks (admin token or an
// admin's session, checked by the admin API plugin before any of these run): status,
// dead-letter listing, inspection and replay, the probe and its ledger, and, only in dev
// mode with the sink on, the test sink's view, send-test and clear.
import type { FastifyRequest } from 'fastify'
import { sendAdminData, type AdminRoutes } from '../admin/admin-route.js'
import { recordId } from '../admin/admin-params.js'
import { DlqQuery, ReplayBody, replayRequest } from '../../webhooks/dlq-schemas.js'
import { listDeadLetters, showDeadLetter } from '../../webhooks/dead-letters.js'
import { clearSink, sinkView } from '../../webhooks/sink-captures.js'
import { sinkEnabled } from '../../webhooks/sink-url.js'
import { invalid } from '../../kernel/errors.js'
import type { WebhookActor } from '../../webhooks/webhook-service.js'

/** Who triggered an operator action, as the probe payload and ledger show it. */
export function triggeredBy(request: FastifyRequest): string {
  const admin = request.admin
  if (!admin) return 'admin'
  // A token's id: `admin-token` (the setting) or a managed token's `adm_…`.
  return admin.type === 'token' ? admin.id : `admin:${admin.id}`
}

/** Who the audit log names for an admin's probe or replay: the admin token or the signed-in admin. */
export const adminActor = (request: FastifyRequest): WebhookActor => ({ type: 'admin', id: request.admin?.id ?? 'admin', requestId: request.id })

export const webhookAdminRoutes: AdminRoutes = (admin, { services }) => {
  const { database, webhooks } = services

  admin.get('/webhooks', async (request, reply) => sendAdminData(reply, request, await webhooks.status()))

  admin.get('/webhooks/dlq', { schema: { querystring: DlqQuery } }, async (request, reply) => {
    const q = request.query as { status?: 'failed' | 'queued'; limit?: number; cursor?: string }
    let afterId: number | undefined
    if (q.cursor !== undefined) {
      if (!/^\d{1,15}$/.test(q.cursor)) throw invalid('cursor', 'use pagination.nextCursor as given')
      afterId = Number(q.cursor)
    }
    const { items, hasMore } = await listDeadLetters(database, { status: q.status, limit: q.limit ?? 50, afterId })
    const last = items[items.length - 1]
    return reply.type('application/json; charset=utf-8').send({
      ok: true, data: items, pagination: { hasMore, nextCursor: hasMore && last ? String(last.id) : null }, requestId: request.id,
    })
  })

  admin.get('/webhooks/dlq/:id', async (request, reply) => sendAdminData(reply, request, await showDeadLetter(database, recordId(request.params))))

  admin.post('/webhooks/dlq/replay', { schema: { body: ReplayBody } }, async (request, reply) => {
    const req = replayRequest(request.body as Parameters<typeof replayRequest>[0])
    return sendAdminData(reply, request, await webhooks.replay(req, adminActor(request)))
  })

  admin.get('/webhooks/probe', async (request, reply) => sendAdminData(reply, request, await webhooks.probeLedger()))
  admin.post('/webhooks/probe', async (request, reply) => sendAdminData(reply, request, await webhooks.probe(triggeredBy(request), adminActor(request))))

  if (!sinkEnabled(services.settings)) return
  admin.get('/webhooks/sink', async (request, reply) => sendAdminData(reply, request, await sinkView(database, services.settings)))
  admin.post('/webhooks/sink/send-test', async (request, reply) => sendAdminData(reply, request, await webhooks.sendTest(triggeredBy(request))))
  admin.post('/webhooks/sink/clear', async (request, reply) => {
    await clearSink(database)
    return sendAdminData(reply, request, await sinkView(database, services.settings))
  })
}
