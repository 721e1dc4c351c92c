// Workflow definitions on the admin API (/gatehouse/admin/v1/workflows, admin token or a
// control-panel session): list, create, show, update, delete, pause, resume and the run
// history. Bodies are checked by the job runtime against the same schemas the CLI and the
// panel go through (no type coercion); changes are audited with the admin as the actor.
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { invalid } from '../../kernel/errors.js'
import { sendAdminData, type AdminRoutes } from '../admin/admin-route.js'
import type { CursorCodec } from '../../kernel/cursor.js'
import { queryDigest } from '../../kernel/cursor.js'
import type { JobActor } from '../../jobs/job-context.js'
import { Cursor, Limit, TemplateKey } from '../../jobs/job-schemas.js'
import { WORKFLOW_STATUSES, type WorkflowStatus } from '../../jobs/workflow.js'

const WORKFLOW_ID = /^[A-Za-z0-9._:-]{1,100}$/

const AdminWorkflowsQuery = Type.Object({
  status: Type.Optional(Type.String({ enum: [...WORKFLOW_STATUSES] })),
  templateKey: Type.Optional(TemplateKey),
  credentialId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Cursor),
}, { additionalProperties: false })

const AdminRunsQuery = Type.Object({ limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) }, { additionalProperties: false })

/** The workflow id from the path, or a 400 naming `id`. */
export function workflowId(params: unknown): string {
  const id = (params as { id?: string }).id ?? ''
  if (!WORKFLOW_ID.test(id)) throw invalid('id', 'not a workflow id')
  return id
}

const adminActor = (request: FastifyRequest): JobActor => ({ type: 'admin', id: request.admin?.id ?? 'admin', requestId: request.id })

/** A keyset cursor bound to the query it belongs to. */
function keyset(cursors: CursorCodec, filters: Record<string, unknown>, cursor: string | undefined) {
  const digest = queryDigest(filters)
  let position: { t: number; i: string } | undefined
  if (cursor !== undefined) {
    const c = cursors.decode<{ q?: string; t?: number; i?: string }>(cursor)
    if (c.q !== digest || typeof c.t !== 'number' || typeof c.i !== 'string') throw invalid('cursor', 'cursor belongs to another query; repeat the parameters of the first page')
    position = { t: c.t, i: c.i }
  }
  const next = (hasMore: boolean, last: { t: number; i: string } | undefined) => (hasMore && last ? cursors.encode({ q: digest, ...last }) : null)
  return { position, next }
}

function sendPage(reply: FastifyReply, request: FastifyRequest, data: unknown, nextCursor: string | null): FastifyReply {
  return reply.type('application/json; charset=utf-8').send({ ok: true, data, pagination: { hasMore: nextCursor !== null, nextCursor }, requestId: request.id })
}

export const jobAdminRoutes: AdminRoutes = (admin, { services }) => {
  const { jobs, cursors } = services

  admin.get('/workflows', { schema: { querystring: AdminWorkflowsQuery } }, async (request, reply) => {
    const q = request.query as Static<typeof AdminWorkflowsQuery>
    const { cursor, limit, ...filters } = q
    const page = keyset(cursors, filters, cursor)
    const { items, hasMore } = await jobs.list({
      status: q.status as WorkflowStatus | undefined, templateKey: q.templateKey, credentialId: q.credentialId,
      after: page.position ? { createdAt: page.position.t, id: page.position.i } : undefined, limit: limit ?? 50,
    })
    const last = items[items.length - 1]
    return sendPage(reply, request, items, page.next(hasMore, last ? { t: Date.parse(last.createdAt), i: last.id } : undefined))
  })

  admin.post('/workflows', async (request, reply) => sendAdminData(reply, request, await jobs.create(request.body, adminActor(request)), 201))

  admin.get('/workflows/:id', async (request, reply) => sendAdminData(reply, request, await jobs.get(workflowId(request.params))))

  admin.patch('/workflows/:id', async (request, reply) =>
    sendAdminData(reply, request, await jobs.update(workflowId(request.params), request.body, adminActor(request))))

  admin.delete('/workflows/:id', async (request, reply) => {
    await jobs.delete(workflowId(request.params), adminActor(request))
    return reply.code(204).send()
  })

  admin.post('/workflows/:id/pause', async (request, reply) => sendAdminData(reply, request, await jobs.pause(workflowId(request.params), adminActor(request))))
  admin.post('/workflows/:id/resume', async (request, reply) => sendAdminData(reply, request, await jobs.resume(workflowId(request.params), adminActor(request))))

  admin.get('/workflows/:id/runs', { schema: { querystring: AdminRunsQuery } }, async (request, reply) => {
    const id = workflowId(request.params)
    const { cursor, limit } = request.query as Static<typeof AdminRunsQuery>
    const page = keyset(cursors, { workflowId: id }, cursor)
    const { items, hasMore } = await jobs.runs(id, limit ?? 50, page.position ? { startedAt: page.position.t, id: page.position.i } : undefined)
    const last = items[items.length - 1]
    return sendPage(reply, request, items, page.next(hasMore, last ? { t: Date.parse(last.startedAt), i: last.id } : undefined))
  })
}
