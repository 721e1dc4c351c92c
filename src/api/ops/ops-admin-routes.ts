// The operator console's reads on the admin API: integrations (each credential's traffic,
// sync lag, deliveries and lifecycle), the chart series behind the control panel, and the
// incident list. The same functions render the panel's Integrations, Status and Incidents
// screens.
import { Type, type Static } from '@sinclair/typebox'
import { sendAdminData, sendAdminPage, type AdminRoutes } from '../admin/admin-route.js'
import { credentialId } from '../admin/admin-params.js'
import { integrationOverview, listIntegrations } from '../../operations/integration-overview.js'
import { CHART_RANGES, readSeries, type ChartRange } from '../../ops/metric-buckets.js'
import { incidentPage } from '../../ops/incident-page.js'
import { listIncidents } from '../../ops/incident-monitor.js'
import { IncidentsQuery } from '../../ops/ops-schemas.js'

const SeriesQuery = Type.Object({
  range: Type.Optional(Type.Union(CHART_RANGES.map((r) => Type.Literal(r)), { description: 'hour (1-minute points), day (15-minute points) or week (3-hour points); default hour' })),
  credential: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$', description: "One credential's traffic; default the whole site" })),
}, { additionalProperties: false })

export const opsAdminRoutes: AdminRoutes = (admin, { services }) => {
  const { database } = services

  admin.get('/integrations', async (request, reply) => sendAdminData(reply, request, await listIntegrations(services)))
  admin.get('/integrations/:id', async (request, reply) => sendAdminData(reply, request, await integrationOverview(services, credentialId(request.params))))

  admin.get('/metrics/series', { schema: { querystring: SeriesQuery } }, async (request, reply) => {
    const q = request.query as Static<typeof SeriesQuery>
    await services.metricBuckets.flush().catch(() => {})
    return sendAdminData(reply, request, await readSeries(database.db, { range: (q.range ?? 'hour') as ChartRange, credentialId: q.credential ?? null }))
  })

  // As the incident monitors of the serving processes last evaluated them (every few seconds to 30 s).
  admin.get('/incidents', { schema: { querystring: IncidentsQuery } }, async (request, reply) => {
    const q = request.query as Static<typeof IncidentsQuery>
    return sendAdminPage(reply, request, await incidentPage((query) => listIncidents(database.db, query), services.cursors, q))
  })
}
