// List, create, read, update and delete of content records, one set of routes per declared
// resource (`/{type}` and `/{type}/{id}`). Every write goes through the content store's
// write service, so validation, derived values and the change log happen there, in one
// transaction: a rejected write leaves nothing behind. Lists are the machine API's list
// operation with its parameters and paging, read as a holder of every family's scopes.
import type { FastifyRequest } from 'fastify'
import { notFound } from '../../kernel/errors.js'
import type { ResourceRegistry } from '../../resources/index.js'
import { listRecords } from '../../operations/list-records.js'
import { listQuerySchema } from '../../operations/record-inputs.js'
import type { ReadCaller } from '../../operations/read-context.js'
import { recordId } from './admin-params.js'
import { sendAdminData, sendAdminPage, type AdminRoutes } from './admin-route.js'
import { adminWriteOrigin } from './write-origin.js'

/** Admins see every family whole: sensitive fields and every status. */
function adminReader(resources: ResourceRegistry): ReadCaller {
  const scopes = resources.all.flatMap((r) => [r.scope, r.sensitiveScope, r.status?.otherStatusesScope])
  return { scopes: new Set(scopes.filter((s): s is string => s !== undefined)) }
}

export const recordRoutes: AdminRoutes = (admin, { services }) => {
  const { store } = services
  const reader = adminReader(services.resources)
  const origin = (request: FastifyRequest) => adminWriteOrigin(request, (id) => services.credentials.exists(id))
  for (const r of services.resources.all) {
    admin.get(`/${r.type}`, { schema: { querystring: listQuerySchema(r) } }, async (request, reply) =>
      sendAdminPage(reply, request, await listRecords(services, r, request.query as Record<string, unknown>, reader)))
    admin.post(`/${r.type}`, async (request, reply) => {
      const created = await store.create(r.type, request.body, await origin(request))
      return sendAdminData(reply, request, await store.get(r.type, created.id as number) ?? created, 201)
    })
    admin.get(`/${r.type}/:id`, async (request, reply) => {
      const id = recordId(request.params)
      const record = await store.get(r.type, id)
      if (!record) throw notFound(`No ${r.type} record with id ${id}`)
      return sendAdminData(reply, request, record)
    })
    admin.patch(`/${r.type}/:id`, async (request, reply) => {
      const id = recordId(request.params)
      const updated = await store.update(r.type, id, request.body, await origin(request))
      // Read back after commit: derived refreshes run at the end of the transaction.
      return sendAdminData(reply, request, await store.get(r.type, id) ?? updated)
    })
    admin.delete(`/${r.type}/:id`, async (request, reply) => {
      const id = recordId(request.params)
      await store.remove(r.type, id, await origin(request))
      return reply.code(204).send()
    })
  }
}
