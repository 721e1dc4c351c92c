// The Status screen and its actions. Each action calls the operation the admin API's
// webhook routes call (probe, send-test, clear, replay), then redirects back with the
// outcome as a flash message.
import type { FastifyInstance } from 'fastify'
import { recordId } from '../api/admin/admin-params.js'
import { ApiError } from '../kernel/errors.js'
import { lifecycleReport } from '../ops/lifecycle.js'
import { listDeadLetters, showDeadLetter } from '../webhooks/dead-letters.js'
import { clearSink, sinkView } from '../webhooks/sink-captures.js'
import { sinkEnabled } from '../webhooks/sink-url.js'
import { adminActor, triggeredBy } from '../api/webhooks/webhook-admin-routes.js'
import type { Flash } from './panel-sessions.js'
import { redirectWith, renderPage, sessionOf, type PanelContext } from './panel-context.js'
import { deadLetterView, statusView } from './views/status-view.js'
import { readSeries } from '../ops/metric-buckets.js'
import { chartRange } from './panel-query.js'
import { plural } from './html.js'

const DLQ_PAGE = 50
const REPLAY_ALL_LIMIT = 1000

/** Runs an operation; an ApiError (cooldown, not configured, unknown id) becomes an error flash. */
async function outcome(run: () => Promise<Flash>): Promise<Flash> {
  try {
    return await run()
  } catch (err) {
    if (err instanceof ApiError) return { kind: 'error', text: err.message }
    throw err
  }
}

export async function statusRoutes(panel: FastifyInstance, ctx: PanelContext): Promise<void> {
  const { services } = ctx
  const { database, settings, webhooks, credentials } = services

  panel.get('/status', { config: { screen: { title: 'Status', order: 10 } } }, async (request, reply) => {
    const range = chartRange(request.query)
    await credentials.flushUsage().catch(() => {})
    await services.metricBuckets.flush().catch(() => {})
    const readiness = await ctx.readiness()
    const records = await credentials.list()
    const dlq = await listDeadLetters(database, { limit: DLQ_PAGE })
    const body = statusView(sessionOf(request), {
      readiness,
      credentials: records,
      lifecycle: lifecycleReport(records),
      posture: {
        legacyToken: Boolean(settings.apiToken), adminToken: Boolean(settings.adminToken), rateLimitPerMinute: settings.rateLimitPerMinute,
        devMode: settings.devMode, writesExperimental: settings.writesExperimental,
      },
      adminTokens: (await services.adminTokens.list()).filter((t) => t.status === 'active'),
      webhooks: await webhooks.status(),
      webhookCheck: readiness.checks.find((c) => c.name === 'webhookSettings'),
      secretSet: Boolean(settings.webhookSecret),
      ledger: await webhooks.probeLedger(),
      sink: sinkEnabled(settings) ? await sinkView(database, settings) : null,
      deadLetters: dlq.items,
      moreDeadLetters: dlq.hasMore,
      traffic: await readSeries(database.db, { range }),
      range,
    })
    return renderPage(ctx, request, reply, { title: 'Status' }, body)
  })

  panel.post('/status/probe', async (request, reply) => {
    const flash = await outcome(async () => {
      const p = await webhooks.probe(triggeredBy(request), adminActor(request))
      return p.status === 'delivered'
        ? { kind: 'ok', text: `Probe ${p.probeId} delivered: HTTP ${p.statusCode} in ${p.durationMs} ms.` }
        : { kind: 'error', text: `Probe ${p.probeId} failed: ${p.statusCode !== null ? `HTTP ${p.statusCode}` : p.error ?? 'no answer'}.` }
    })
    return redirectWith(ctx, request, reply, flash, 'status#probe')
  })

  panel.get('/status/dlq/:id', async (request, reply) => {
    const item = await showDeadLetter(database, recordId(request.params))
    return renderPage(ctx, request, reply, { title: `Dead letter ${item.id}` }, deadLetterView(sessionOf(request), item))
  })

  panel.post('/status/dlq/:id/replay', async (request, reply) => {
    const flash = await outcome(async () => {
      const r = await webhooks.replay({ mode: 'single', id: recordId(request.params) }, adminActor(request))
      return r.replayed > 0 ? { kind: 'ok', text: `Replayed dead letter ${r.ids.join(', ')}.` } : { kind: 'ok', text: 'Already queued for replay.' }
    })
    return redirectWith(ctx, request, reply, flash, 'status#dlq')
  })

  panel.post('/status/dlq/replay-all', async (request, reply) => {
    const r = await webhooks.replay({ mode: 'all', limit: REPLAY_ALL_LIMIT }, adminActor(request))
    return redirectWith(ctx, request, reply, { kind: 'ok', text: `Replayed ${plural(r.replayed, 'dead letter', 'dead letters')}.` }, 'status#dlq')
  })

  // The sink's actions exist only where the sink does (dev mode with the sink flag).
  if (!sinkEnabled(settings)) return
  panel.post('/status/sink/send-test', async (request, reply) => {
    const flash = await outcome(async () => {
      const r = await webhooks.sendTest(triggeredBy(request))
      const o = r.outcome
      return o.status === 'delivered'
        ? { kind: 'ok', text: `Test webhook ${r.deliveryId} delivered to the sink (HTTP ${o.statusCode}).` }
        : { kind: 'error', text: `Test webhook ${r.deliveryId} not delivered (${o.statusCode !== null ? `HTTP ${o.statusCode}` : o.error ?? 'no answer'}); status ${o.status}.` }
    })
    return redirectWith(ctx, request, reply, flash, 'status#sink')
  })
  panel.post('/status/sink/clear', async (request, reply) => {
    await clearSink(database)
    return redirectWith(ctx, request, reply, { kind: 'ok', text: 'Sink captures cleared.' }, 'status#sink')
  })
}
