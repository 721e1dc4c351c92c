// The admins part of the Accounts screen: an admin's sessions, ending them, deleting the admin.
// Each action calls the operation the admin API's /admins routes and the CLI call, with the
// signed-in admin as the audited actor. Ending the session this request came with, or deleting
// one's own account, signs the admin out.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { adminUsername } from '../api/admin/admin-params.js'
import { notFound } from '../kernel/errors.js'
import type { Actor } from '../control/actor.js'
import { deleteAdmin, endAdminSessions, listAdminAccounts, listAdminSessions, type AdminAccountInfo } from '../operations/admin-accounts.js'
import { formOf, redirectWith, renderPage, sessionOf, type PanelContext } from './panel-context.js'
import { PANEL_BASE } from './layout.js'
import { adminDeleteConfirmView, adminDetailView } from './views/admin-views.js'

const LOGIN_PATH = `${PANEL_BASE}/login`

const by = (request: FastifyRequest): Actor => ({ type: 'admin', id: sessionOf(request).username })

export async function adminRoutes(panel: FastifyInstance, ctx: PanelContext): Promise<void> {
  const { database } = ctx.services
  const page = { title: 'Accounts' } as const

  const account = async (request: FastifyRequest): Promise<{ account: AdminAccountInfo; isLast: boolean }> => {
    const username = adminUsername(request.params)
    const all = await listAdminAccounts(database.db)
    const found = all.find((a) => a.username === username)
    if (!found) throw notFound(`No admin named ${username}`)
    return { account: found, isLast: all.length === 1 }
  }
  const here = (username: string) => `accounts/admins/${encodeURIComponent(username)}`
  /** After ending sessions: the login page when this request's own session was among them. */
  const afterEnding = (request: FastifyRequest, reply: FastifyReply, endedOwn: boolean, text: string, username: string) =>
    endedOwn ? reply.header('Set-Cookie', ctx.sessions.clearCookie()).redirect(LOGIN_PATH, 303)
      : redirectWith(ctx, request, reply, { kind: 'ok', text }, here(username))

  panel.get('/accounts/admins/:username', async (request, reply) => {
    const { account: a, isLast } = await account(request)
    const sessions = await listAdminSessions(database.db, { username: a.username, currentDigest: sessionOf(request).idDigest })
    return renderPage(ctx, request, reply, { ...page, title: `Admin ${a.username}` }, adminDetailView(sessionOf(request), a, sessions, isLast))
  })

  panel.post('/accounts/admins/:username/sessions/end', async (request, reply) => {
    const username = adminUsername(request.params)
    const id = formOf(request).get('id') ?? ''
    const own = await listAdminSessions(database.db, { username, currentDigest: sessionOf(request).idDigest })
    if (!own.some((x) => x.id === id)) throw notFound(`No live session ${id.slice(0, 40)} of admin ${username}`)
    const { ended } = await endAdminSessions(database.db, { id }, by(request))
    return afterEnding(request, reply, own.some((x) => x.id === id && x.current), `Ended session ${ended[0]?.id ?? id}.`, username)
  })

  panel.post('/accounts/admins/:username/sessions/end-all', async (request, reply) => {
    const username = adminUsername(request.params)
    const { ended } = await endAdminSessions(database.db, { username }, by(request))
    const self = username === sessionOf(request).username
    return afterEnding(request, reply, self && ended.length > 0, `Ended ${ended.length} session${ended.length === 1 ? '' : 's'} of ${username}.`, username)
  })

  panel.get('/accounts/admins/:username/confirm-delete', async (request, reply) => {
    const { account: a } = await account(request)
    return renderPage(ctx, request, reply, { ...page, title: 'Confirm' }, adminDeleteConfirmView(sessionOf(request), a, a.username === sessionOf(request).username))
  })

  panel.post('/accounts/admins/:username/delete', async (request, reply) => {
    const username = adminUsername(request.params)
    await deleteAdmin(database, username, by(request))
    if (username === sessionOf(request).username) return reply.header('Set-Cookie', ctx.sessions.clearCookie()).redirect(LOGIN_PATH, 303)
    return redirectWith(ctx, request, reply, { kind: 'ok', text: `Deleted admin ${username} and ended its sessions.` }, 'accounts#admins')
  })
}
