// The delivery log on the admin API (/gatehouse/admin/v1/webhooks/deliveries): the listing
// with the control panel's filters (the same query parameters), one delivery with its
// attempts and payload, and replay of one delivery or of every delivery a filter selects.
import { Type, type Static } from '@sinclair/typebox'
import { sendAdminData, type AdminRoutes } from '../admin/admin-route.js'
import { recordId } from '../admin/admin-params.js'
import { ApiError, invalid } from '../../kernel/errors.js'
import { filterText, listDeliveries, readDeliveryFilter, REPLAY_FILTER_LIMIT, showDelivery } from '../../webhooks/delivery-log.js'
import { adminActor } from './webhook-admin-routes.js'
import { assertValid } from '../../store/validation.js'

const FilterFields = {
  status: Type.Optional(Type.String({ maxLength: 20, description: 'queued, delivered or failed (failed: the dead-letter queue)' })),
  eventType: Type.Optional(Type.String({ maxLength: 40, description: 'product.updated, product (any action) or test' })),
  resource: Type.Optional(Type.String({ maxLength: 40, description: 'A resource type, optionally with an id: product:12' })),
  credential: Type.Optional(Type.String({ maxLength: 128, description: 'Deliveries whose routing matched this credential' })),
  since: Type.Optional(Type.String({ maxLength: 40, description: 'Created at or after: a date-time, or 90m, 24h, 7d before now' })),
  until: Type.Optional(Type.String({ maxLength: 40, description: 'Created before: a date-time, or a time before now' })),
}

const DeliveriesQuery = Type.Object({
  ...FilterFields,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1..200' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: 'pagination.nextCursor of the previous page' })),
}, { additionalProperties: false })

const DeliveryReplayBody = Type.Object({
  id: Type.Optional(Type.Integer({ minimum: 1, description: 'Replay this one delivery' })),
  filter: Type.Optional(Type.Object(FilterFields, { additionalProperties: false, description: 'Replay what this filter selects' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: REPLAY_FILTER_LIMIT, description: `With filter: at most this many, oldest first (default ${REPLAY_FILTER_LIMIT})` })),
}, { additionalProperties: false })

export const deliveryAdminRoutes: AdminRoutes = (admin, { services }) => {
  const { database, webhooks } = services

  admin.get('/webhooks/deliveries', { schema: { querystring: DeliveriesQuery } }, async (request, reply) => {
    const q = request.query as Static<typeof DeliveriesQuery>
    if (q.cursor !== undefined && !/^[1-9]\d{0,15}$/.test(q.cursor)) throw invalid('cursor', 'use pagination.nextCursor as given')
    const { items, hasMore } = await listDeliveries(database, readDeliveryFilter(q, services.resources.eventTypes), { limit: q.limit ?? 50, beforeId: q.cursor === undefined ? undefined : Number(q.cursor) })
    const last = items[items.length - 1]
    return reply.type('application/json; charset=utf-8').send({
      ok: true, data: items, pagination: { hasMore, nextCursor: hasMore && last ? String(last.id) : null }, requestId: request.id,
    })
  })

  admin.get('/webhooks/deliveries/:id', async (request, reply) => sendAdminData(reply, request, await showDelivery(database, recordId(request.params))))

  // The body is checked as typed (no coercion of JSON types), naming every bad field.
  admin.post('/webhooks/deliveries/replay', async (request, reply) => {
    const b = (request.body ?? {}) as Static<typeof DeliveryReplayBody>
    assertValid(DeliveryReplayBody, b)
    if ((b.id === undefined) === (b.filter === undefined)) {
      throw new ApiError('INVALID_REQUEST', 'Give either id or filter', [
        { param: 'id', problem: 'one delivery to replay; not with filter' }, { param: 'filter', problem: 'the deliveries to replay; not with id' },
      ])
    }
    if (b.id !== undefined) {
      if (b.limit !== undefined) throw invalid('limit', 'only with filter')
      return sendAdminData(reply, request, await webhooks.replay({ mode: 'delivery', id: b.id }, adminActor(request)))
    }
    const f = b.filter ?? {}
    const result = await webhooks.replay({ mode: 'filter', filter: readDeliveryFilter(f, services.resources.eventTypes, { prefix: 'filter.' }), params: filterText(f), limit: b.limit ?? REPLAY_FILTER_LIMIT }, adminActor(request))
    return sendAdminData(reply, request, result)
  })
}
