// The Accounts screens and actions: each action calls the CredentialService method the
// admin API's credential routes call (create, rotate, setStatus, delete), with the signed-in
// admin as the actor the audit log records. New and rotated tokens are shown once, on the
// page the form's answer redirects to (issued-token.ts), so a reload does not act again.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { credentialId } from '../api/admin/admin-params.js'
import { ApiError, notFound } from '../kernel/errors.js'
import type { CredentialChangeActor, CredentialStatus } from '../auth/credentials.js'
import { accountWords, emptyAccountForm, readAccountForm, toCreateInput } from './account-form.js'
import { fieldErrors } from './field-errors.js'
import { formOf, redirectWith, renderPage, sessionOf, type PanelContext } from './panel-context.js'
import { listAdminAccounts } from '../operations/admin-accounts.js'
import { html } from './html.js'
import { adminListView } from './views/admin-views.js'
import { accountDetailView, accountFormView, accountListView, CONFIRM_TEXT, confirmView, tokenGoneView, tokenView } from './views/account-views.js'
import { redirectToIssued, takeIssued } from './issued-token.js'

const STATUS_ACTIONS: Record<string, CredentialStatus> = { pause: 'paused', resume: 'active', revoke: 'revoked' }

/** The signed-in admin, recorded in the audit log as the admin API records it. */
const by = (request: FastifyRequest): CredentialChangeActor => ({ type: 'admin', id: sessionOf(request).username, requestId: request.id })

export async function accountRoutes(panel: FastifyInstance, ctx: PanelContext): Promise<void> {
  const { credentials, settings, providers, resources } = ctx.services
  const words = accountWords(resources.boundaryAxes)
  const scopes = () => [...ctx.services.scopes.enabled(settings).filter((x) => !x.deprecatedFor), ...providers.scopes()]
  const page = { title: 'Accounts' } as const
  const { db } = ctx.services.database

  panel.get('/accounts', { config: { screen: { title: 'Accounts', order: 60 } } }, async (request, reply) => {
    await credentials.flushUsage().catch(() => {})
    return renderPage(ctx, request, reply, page, html`${accountListView(await credentials.list())}${adminListView(await listAdminAccounts(ctx.services.database.db))}`)
  })

  panel.get('/accounts/new', async (request, reply) =>
    renderPage(ctx, request, reply, { ...page, title: 'Create credential' }, accountFormView(sessionOf(request), scopes(), resources, emptyAccountForm)))

  panel.post('/accounts', async (request, reply) => {
    const values = readAccountForm(formOf(request), resources.boundaryAxes)
    try {
      const { credential, token } = await credentials.create(toCreateInput(values, resources, credentials), by(request))
      return redirectToIssued(db, reply, ctx.sessions.secure, { credentialId: credential.id, token, verb: 'created' })
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'INVALID_REQUEST') throw err
      const problems = err.details && err.details.length > 0 ? err.details : [{ param: '(form)', problem: err.message }]
      return renderPage(ctx, request, reply, { ...page, title: 'Create credential' }, accountFormView(sessionOf(request), scopes(), resources, values, fieldErrors(problems, words)), 400)
    }
  })

  panel.get('/accounts/:id', async (request, reply) => {
    const c = await credentials.get(credentialId(request.params))
    const oauth = (await ctx.services.oauth.grants()).filter((g) => g.credentialId === c.id)
    return renderPage(ctx, request, reply, { ...page, title: c.label }, accountDetailView(sessionOf(request), c, resources.boundaryAxes, oauth))
  })

  panel.get('/accounts/:id/confirm/:action', async (request, reply) => {
    const action = (request.params as { action: string }).action
    if (!Object.hasOwn(CONFIRM_TEXT, action)) throw notFound(`No action ${action}`)
    const c = await credentials.get(credentialId(request.params))
    return renderPage(ctx, request, reply, { ...page, title: 'Confirm' }, confirmView(sessionOf(request), c, action as keyof typeof CONFIRM_TEXT))
  })

  panel.post('/accounts/:id/rotate', async (request, reply) => {
    const { credential, token } = await credentials.rotate(credentialId(request.params), by(request))
    return redirectToIssued(db, reply, ctx.sessions.secure, { credentialId: credential.id, token, verb: 'rotated' })
  })

  // (A static path: the router prefers it to /accounts/:id whatever the order.)
  panel.get('/accounts/issued', async (request, reply) => {
    const issued = await takeIssued(db, request, reply, ctx.sessions.secure)
    if (!issued) return renderPage(ctx, request, reply, { ...page, title: 'Token not shown again' }, tokenGoneView())
    const credential = await credentials.get(issued.credentialId)
    return renderPage(ctx, request, reply, { ...page, title: issued.verb === 'created' ? 'Credential created' : 'Token rotated' }, tokenView(credential, issued.token, issued.verb))
  })

  for (const [action, status] of Object.entries(STATUS_ACTIONS)) {
    panel.post(`/accounts/:id/${action}`, async (request, reply) => {
      const c = await credentials.setStatus(credentialId(request.params), status, by(request))
      return redirectWith(ctx, request, reply, { kind: 'ok', text: `${c.label}: now ${c.status}.` }, `accounts/${c.id}`)
    })
  }

  panel.post('/accounts/:id/delete', async (request, reply) => {
    const id = credentialId(request.params)
    const c = await credentials.get(id)
    await credentials.delete(id, by(request))
    return redirectWith(ctx, request, reply, { kind: 'ok', text: `Deleted ${c.label}.` }, 'accounts')
  })
}
