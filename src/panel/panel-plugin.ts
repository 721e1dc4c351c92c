// The control panel at /gatehouse/cp: server-rendered pages for operators. All of its
// encapsulation happens here: the form-body parser (only inside this plugin, so the
// machine and admin APIs keep refusing non-JSON bodies), the security headers, the login
// check that redirects every page without a session, the CSRF check on every POST, and
// HTML error pages that never show internals.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Services } from '../operations/services.js'
import type { Readiness } from '../operations/readiness.js'
import type { IncidentMonitor } from '../ops/incident-monitor.js'
import { storeErrors, toApiError } from '../api/error-handler.js'
import { ApiError, invalid } from '../kernel/errors.js'
import { requestTextProblem } from '../api/request-text.js'
import { html } from './html.js'
import { PANEL_BASE, type NavScreen } from './layout.js'
import { CSRF_FIELD, tokensMatch } from './csrf.js'
import { formOf, renderPage, safeNext, type PanelContext } from './panel-context.js'
import type { PanelSessions } from './panel-sessions.js'
import { LoginThrottle } from '../auth/login-throttle.js'
import { loginRoutes } from './login-routes.js'
import { statusRoutes } from './status-routes.js'
import { accountRoutes } from './account-routes.js'
import { adminRoutes } from './admin-routes.js'
import { approvalRoutes, auditRoutes } from './control-routes.js'
import { jobRoutes } from './job-routes.js'
import { integrationRoutes } from './integration-routes.js'
import { deliveryRoutes } from './delivery-routes.js'
import { incidentRoutes } from './incident-routes.js'
import { policyRoutes } from './policy-routes.js'
import { settingsRoutes } from './settings-routes.js'
import { oauthConsentRoutes } from './oauth-consent-routes.js'

export interface ControlPanelOptions {
  readonly services: Services
  /** Shared with the admin API's sessionResolver, so a panel session also works there. */
  readonly sessions: PanelSessions
  readonly readiness: () => Promise<Readiness>
  readonly monitor: IncidentMonitor
}

const FORM_BODY_LIMIT = 64 * 1024

// No script may run and nothing is loaded from elsewhere: the panel needs neither.
const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
}

function toLogin(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split('?')[0]
  // Back to where the browser was, its query (a filter, a range) included.
  const next = request.method === 'GET' && path !== PANEL_BASE && path !== `${PANEL_BASE}/` ? `?next=${encodeURIComponent(safeNext(request.url))}` : ''
  return reply.redirect(`${PANEL_BASE}/login${next}`, 303)
}

export async function controlPanel(app: FastifyInstance, opts: ControlPanelOptions): Promise<void> {
  // Approvals, Policies and Audit exist while the control plane does (PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL).
  const control = opts.services.settings.writesExperimental
  const screens: NavScreen[] = []
  const ctx: PanelContext = { services: opts.services, sessions: opts.sessions, readiness: opts.readiness, monitor: opts.monitor, screens }
  const throttle = new LoginThrottle(opts.services.database)

  await app.register(async (panel) => {
    // The navigation is the screens registered: a GET route with config.screen adds itself.
    panel.addHook('onRoute', (route) => {
      const screen = route.config?.screen
      if (!screen || ![route.method].flat().includes('GET')) return
      screens.push({ path: route.url, title: screen.title, order: screen.order })
      screens.sort((a, b) => a.order - b.order)
    })
    panel.removeAllContentTypeParsers()
    panel.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_req, body, done) => done(null, new URLSearchParams(body as string)))

    panel.addHook('onRequest', async (request, reply) => {
      reply.headers(SECURITY_HEADERS)
      if (request.routeOptions.config?.panelPublic) return
      const session = await opts.sessions.resolve(request)
      if (!session) return toLogin(request, reply)
      request.panelSession = session
      // The same principal the admin API records, so probes and audit name the admin alike.
      request.admin = { type: 'session', id: session.username }
    })

    // Text the database cannot take is a 400 naming the field, on every page and form; the
    // login form answers its own refusal instead (login-routes.ts).
    panel.addHook('preValidation', async (request) => {
      if (request.routeOptions.config?.panelPublic) return
      const bad = requestTextProblem(request)
      if (bad !== undefined) throw invalid(bad.param, bad.problem)
    })

    // After body parsing: every signed-in POST must carry the session's token.
    panel.addHook('preHandler', async (request, reply) => {
      if (request.method !== 'POST' || request.routeOptions.config?.panelPublic) return
      if (!tokensMatch(formOf(request).get(CSRF_FIELD), request.panelSession?.csrfToken)) {
        return renderPage(ctx, request, reply, { title: 'Form expired' }, html`<section><h1>Form expired</h1>
          <p>This form did not come from your current control-panel session. Go back, reload the page and try again.</p></section>`, 403)
      }
    })

    panel.setErrorHandler(async (err, request, reply) => {
      const known = toApiError(err, request, storeErrors(opts.services.database, opts.services.storage))
      if (!known || known.code === 'INTERNAL_ERROR' || known.code === 'SERVICE_UNAVAILABLE') {
        request.log.error({ err, requestId: request.id }, 'control panel request failed')
      }
      const shown = known && known.code !== 'INTERNAL_ERROR' ? known : new ApiError('INTERNAL_ERROR', 'Something went wrong. The details are in the server log.')
      if (shown.headers) reply.headers(shown.headers)
      return renderPage(ctx, request, reply, { title: 'Error', flash: { kind: 'error', text: shown.message } },
        html`<section><h1>${shown.status === 500 ? 'Unexpected error' : 'Request not completed'}</h1>
        ${shown.details && shown.details.length > 0 ? html`<ul class="problems">${shown.details.map((d) => html`<li><code>${d.param}</code>: ${d.problem}</li>`)}</ul>` : ''}
        <p class="muted">Request id <code>${request.id}</code></p><p><a href="${PANEL_BASE}/status">Back to Status</a></p></section>`, shown.status)
    })

    panel.setNotFoundHandler(async (request, reply) => {
      reply.headers(SECURITY_HEADERS)
      const session = await opts.sessions.resolve(request)
      if (!session) return toLogin(request, reply)
      request.panelSession = session
      return renderPage(ctx, request, reply, { title: 'Not found' }, html`<section><h1>Not found</h1><p><a href="${PANEL_BASE}/status">Back to Status</a></p></section>`, 404)
    })

    panel.get('/', async (_request, reply) => reply.redirect(`${PANEL_BASE}/status`, 303))
    await loginRoutes(panel, ctx, throttle)
    await statusRoutes(panel, ctx)
    await integrationRoutes(panel, ctx)
    await deliveryRoutes(panel, ctx)
    await incidentRoutes(panel, ctx)
    await accountRoutes(panel, ctx)
    await adminRoutes(panel, ctx)
    await jobRoutes(panel, ctx)
    if (control) {
      await approvalRoutes(panel, ctx)
      await policyRoutes(panel, ctx)
      await auditRoutes(panel, ctx)
    }
    await settingsRoutes(panel, ctx)
    if (opts.services.settings.oauthEnabled) await oauthConsentRoutes(panel, ctx)
  }, { prefix: PANEL_BASE })
}
