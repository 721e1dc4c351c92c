// The Integrations screens: the list (optionally only credentials at high or critical risk)
// and one integration's page, from the same functions as the admin API's /integrations.
import type { FastifyInstance } from 'fastify'
import { credentialId } from '../api/admin/admin-params.js'
import { invalid } from '../kernel/errors.js'
import { integrationOverview, listIntegrations } from '../operations/integration-overview.js'
import { renderPage, type PanelContext } from './panel-context.js'
import { queryText } from './panel-query.js'
import { integrationListView, integrationView } from './views/integration-views.js'

export async function integrationRoutes(panel: FastifyInstance, ctx: PanelContext): Promise<void> {
  const { services } = ctx

  panel.get('/integrations', { config: { screen: { title: 'Integrations', order: 20 } } }, async (request, reply) => {
    const risk = queryText(request.query).risk
    if (risk !== undefined && risk !== '' && risk !== 'high') throw invalid('risk', 'must be high (credentials at high or critical risk) or left out')
    return renderPage(ctx, request, reply, { title: 'Integrations' }, integrationListView(await listIntegrations(services), risk === 'high'))
  })

  panel.get('/integrations/:id', async (request, reply) => {
    const o = await integrationOverview(services, credentialId(request.params))
    return renderPage(ctx, request, reply, { title: o.credential.label }, integrationView(o))
  })
}
