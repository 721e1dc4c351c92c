// Admin accounts and their control-panel sessions, for operators (the CLI's `gatehouse admin
// sessions …` and `gatehouse admin delete`, and the panel's Accounts screen, call the same
// operations): list admins, list live sessions, end one session or all of an admin's, delete
// an admin (never the last). Every change is audited with the admin behind the request.
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { invalid } from '../../kernel/errors.js'
import type { Actor } from '../../control/actor.js'
import { assertValid } from '../../store/validation.js'
import { deleteAdmin, endAdminSessions, listAdminAccounts, listAdminSessions, type SessionTarget } from '../../operations/admin-accounts.js'
import { adminUsername } from './admin-params.js'
import { sendAdminData, type AdminRoutes } from './admin-route.js'

const Username = Type.String({ pattern: '^[A-Za-z0-9._@-]{1,100}$' })
const SessionsQuery = Type.Object({ username: Type.Optional(Username) }, { additionalProperties: false })
const EndSessionsBody = Type.Object({
  id: Type.Optional(Type.String({ pattern: '^ses_[0-9a-f]{16}$' })),
  username: Type.Optional(Username),
}, { additionalProperties: false })

const by = (request: FastifyRequest): Actor => ({ type: 'admin', id: request.admin?.id ?? 'admin' })

/** Exactly one of `id` and `username`, each named when wrong. */
function sessionTarget(body: unknown): SessionTarget {
  assertValid(EndSessionsBody, body ?? {})
  const b = (body ?? {}) as { id?: string; username?: string }
  if (b.id !== undefined && b.username !== undefined) throw invalid('(body)', 'give id (one session) or username (all of an admin\'s sessions), not both')
  if (b.id !== undefined) return { id: b.id }
  if (b.username !== undefined) return { username: b.username }
  throw invalid('(body)', 'give id (one session, ses_…) or username (all of an admin\'s sessions)')
}

export const adminAccountRoutes: AdminRoutes = (admin, { services }) => {
  const { db } = services.database

  admin.get('/admins', async (request, reply) => sendAdminData(reply, request, await listAdminAccounts(db)))

  admin.get('/admins/sessions', { schema: { querystring: SessionsQuery } }, async (request, reply) => {
    const { username } = request.query as { username?: string }
    return sendAdminData(reply, request, await listAdminSessions(db, { username, currentDigest: request.admin?.sessionDigest }))
  })

  admin.post('/admins/sessions/end', async (request, reply) =>
    sendAdminData(reply, request, await endAdminSessions(db, sessionTarget(request.body), by(request))))

  admin.delete('/admins/:username', async (request, reply) =>
    sendAdminData(reply, request, await deleteAdmin(services.database, adminUsername(request.params), by(request))))
}
