// The consent page of sign-in for agents (docs/control-panel.md): the authorization server
// sends the browser here; the panel's login (with its throttling) comes first, like any page;
// the form carries the session's CSRF token and the page the panel's headers (CSP
// frame-ancestors 'none'). The answer goes back to the authorization server, which sends
// the browser on to the client with a code, or with access_denied.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../kernel/errors.js'
import type { ConsentDecision, ConsentRequest } from '../oauth/oauth-service.js'
import { accountWords, toCreateInput } from './account-form.js'
import { fieldErrors } from './field-errors.js'
import { formOf, renderPage, sessionOf, type PanelContext } from './panel-context.js'
import { consentView, type ConsentFormValues } from './views/consent-view.js'

/** The library's "no such interaction" (expired, finished, or opened in another browser) as a page an operator understands. */
function expired(err: unknown): never {
  const name = (err as { name?: unknown })?.name
  if (name === 'SessionNotFound' || name === 'InvalidRequest') {
    throw new ApiError('NOT_FOUND', 'This sign-in request has expired, was already answered, or was opened in another browser. Start again from the application.')
  }
  throw err
}

/**
 * The answer to this form ends at the client's redirect URI (consent → authorization server →
 * client), and browsers hold every step of a form's redirects to the page's form-action: the
 * panel's `form-action 'self'` is widened by exactly that one origin (or scheme, for an app's
 * own URI scheme), on this page only.
 */
function allowRedirectTo(reply: FastifyReply, redirectUri: string): void {
  const u = new URL(redirectUri)
  const source = u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : u.protocol
  const csp = String(reply.getHeader('Content-Security-Policy') ?? '')
  reply.header('Content-Security-Policy', csp.replace("form-action 'self'", `form-action 'self' ${source}`))
}

export async function oauthConsentRoutes(panel: FastifyInstance, ctx: PanelContext): Promise<void> {
  const { oauth, resources } = ctx.services
  const axes = resources.boundaryAxes
  const account = accountWords(axes)
  // The consent's own scope problems (oauth-service.ts) are already in words; the rest read as on the credential form.
  const words = { ...account, message: (field: string, problem: string) => field === 'scopes' && /^(not requested|grant at least)/.test(problem) ? `Grant ${problem.replace(/^not requested by this application or not grantable: /, 'only what the application asked for; not: ')}.` : account.message(field, problem) }
  const page = { title: 'Allow access' } as const

  const load = async (request: FastifyRequest, reply: FastifyReply): Promise<ConsentRequest> => {
    const r = await oauth.consentRequest(request.raw, reply.raw).catch(expired)
    if (r.uid !== (request.params as { uid: string }).uid) expired({ name: 'SessionNotFound' })
    allowRedirectTo(reply, r.client.redirectUri)
    return r
  }
  const read = (form: URLSearchParams): ConsentFormValues => ({
    scopes: form.getAll('scopes'), expiresIn: (form.get('expiresIn') ?? '').trim(), ipAllowlist: (form.get('ipAllowlist') ?? '').trim(),
    boundaries: Object.fromEntries(axes.map((a) => [a.name, (form.get(a.name) ?? '').trim()])),
  })

  panel.get('/oauth/consent/:uid', async (request, reply) => {
    const r = await load(request, reply)
    // What the client asks for is ticked; an operator unticks what it should not have.
    const values: ConsentFormValues = { scopes: r.grantable.map((x) => x.scope), expiresIn: '', ipAllowlist: r.previous?.ipAllowlist.join(', ') ?? '', boundaries: {} }
    return renderPage(ctx, request, reply, page, consentView(sessionOf(request), r, axes, values))
  })

  panel.post('/oauth/consent/:uid', async (request, reply) => {
    const r = await load(request, reply)
    const form = formOf(request)
    const admin = sessionOf(request).username
    if (form.get('decision') === 'refuse') {
      return reply.redirect(await oauth.refuse(request.raw, reply.raw, admin).catch(expired), 303)
    }
    const values = read(form)
    let decision: ConsentDecision
    try {
      // The same checks as the credential form (scopes, expiry, allowlist, boundaries), each problem named.
      const input = toCreateInput({ label: 'OAuth grant', scopes: values.scopes, expiresIn: values.expiresIn, ipAllowlist: values.ipAllowlist, interests: [], boundaries: values.boundaries }, resources, ctx.services.credentials)
      decision = { scopes: input.scopes, boundaries: input.boundaries, ipAllowlist: input.ipAllowlist, expiresAt: input.expiresAt }
      return reply.redirect(await oauth.grant(request.raw, reply.raw, decision, admin).catch(expired), 303)
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'INVALID_REQUEST') throw err
      const problems = err.details && err.details.length > 0 ? err.details : [{ param: '(form)', problem: err.message }]
      return renderPage(ctx, request, reply, page, consentView(sessionOf(request), r, axes, values, fieldErrors(problems, words)), 400)
    }
  })
}
