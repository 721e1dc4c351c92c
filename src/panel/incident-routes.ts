// The Incidents screen: re-evaluates the signals first (as GET /incidents does), then lists
// open and recently resolved incidents from the table every process shares.
import type { FastifyInstance } from 'fastify'
import { renderPage, type PanelContext } from './panel-context.js'
import { incidentsView } from './views/incident-views.js'

export async function incidentRoutes(panel: FastifyInstance, ctx: PanelContext): Promise<void> {
  panel.get('/incidents', { config: { screen: { title: 'Incidents', order: 40 } } }, async (request, reply) => {
    await ctx.monitor.evaluate()
    const incidents = await ctx.monitor.list({ limit: 100 })
    return renderPage(ctx, request, reply, { title: 'Incidents' }, incidentsView(incidents))
  })
}
