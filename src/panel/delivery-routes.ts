// The Deliveries screens and their actions. The listing, the delivery page and replay call
// the functions the admin API's /webhooks/deliveries routes call, with the same filter
// parameters; replays are audited with the signed-in admin as the actor.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { recordId } from '../api/admin/admin-params.js'
import { invalid } from '../kernel/errors.js'
import { adminActor } from '../api/webhooks/webhook-admin-routes.js'
import { countDeliveries, filterText, FILTER_PARAMS, listDeliveries, readDeliveryFilter, REPLAY_FILTER_LIMIT, showDelivery } from '../webhooks/delivery-log.js'
import { plural } from './html.js'
import { formOf, redirectWith, renderPage, sessionOf, type PanelContext } from './panel-context.js'
import { queryText } from './panel-query.js'
import { deliveriesHref, deliveryListView, deliveryView, replayConfirmView } from './views/delivery-views.js'

const PAGE = 50

/** The filter fields of a query or form, as given (for links and the audit record). */
const filterFields = (source: Record<string, string>) => filterText(Object.fromEntries(FILTER_PARAMS.map((k) => [k, source[k] ?? ''])))

export async function deliveryRoutes(panel: FastifyInstance, ctx: PanelContext): Promise<void> {
  const { database, webhooks, credentials } = ctx.services
  const { eventTypes } = ctx.services.resources
  const labels = async () => new Map((await credentials.list()).map((c) => [c.id, c.label]))

  panel.get('/deliveries', { config: { screen: { title: 'Deliveries', order: 30 } } }, async (request, reply) => {
    const q = queryText(request.query)
    const fields = filterFields(q)
    // The filter form sends every field; the link of the view names only those that filter.
    if (FILTER_PARAMS.some((k) => q[k] !== undefined && q[k].trim() === '')) {
      return reply.redirect(deliveriesHref(fields, q.cursor ? { cursor: q.cursor } : {}), 303)
    }
    const filter = readDeliveryFilter(fields, eventTypes)
    if (q.cursor !== undefined && !/^[1-9]\d{0,15}$/.test(q.cursor)) throw invalid('cursor', 'use the link to older deliveries as given')
    const { items, hasMore } = await listDeliveries(database, filter, { limit: PAGE, beforeId: q.cursor === undefined ? undefined : Number(q.cursor) })
    const last = items[items.length - 1]
    const body = deliveryListView({
      filter: fields, eventTypes, items, nextCursor: hasMore && last ? String(last.id) : null,
      credentials: await credentials.list(), deadLetters: await countDeliveries(database, { status: 'failed' }),
    })
    return renderPage(ctx, request, reply, { title: 'Deliveries' }, body)
  })

  panel.get('/deliveries/replay', async (request, reply) => {
    const fields = filterFields(queryText(request.query))
    const replayable = await countDeliveries(database, readDeliveryFilter(fields, eventTypes), { replayable: true })
    return renderPage(ctx, request, reply, { title: 'Replay deliveries' }, replayConfirmView(sessionOf(request), fields, replayable))
  })

  panel.post('/deliveries/replay', async (request, reply) => {
    const form = formOf(request)
    const fields = filterFields(Object.fromEntries(FILTER_PARAMS.map((k) => [k, form.get(k) ?? ''])))
    const r = await webhooks.replay({ mode: 'filter', filter: readDeliveryFilter(fields, eventTypes), params: fields, limit: REPLAY_FILTER_LIMIT }, adminActor(request))
    return redirectWith(ctx, request, reply, { kind: 'ok', text: `Replayed ${plural(r.replayed, 'delivery', 'deliveries')}: queued to be sent again.` }, deliveriesHref(fields))
  })

  panel.get('/deliveries/:id', async (request, reply) => {
    const d = await showDelivery(database, recordId(request.params))
    return renderPage(ctx, request, reply, { title: `Delivery ${d.id}` }, deliveryView(sessionOf(request), d, await labels()))
  })

  panel.post('/deliveries/:id/replay', async (request: FastifyRequest, reply) => {
    const id = recordId(request.params)
    const r = await webhooks.replay({ mode: 'delivery', id }, adminActor(request))
    const text = r.replayed > 0 ? `Delivery ${id} queued to be sent again.` : `Delivery ${id} is queued already; nothing to replay.`
    return redirectWith(ctx, request, reply, { kind: 'ok', text }, `deliveries/${id}`)
  })
}
