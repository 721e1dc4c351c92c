// Create, read, update and delete of content records, one set of routes per declared
// resource (`/{type}` and `/{type}/{id}`). Every write goes through the content store's
// write service, so validation, derived values and the change log happen there, in one
// transaction: a rejected write leaves nothing behind.
import { notFound } from '../../contract/errors.js'
import { recordId } from './admin-params.js'
import { sendAdminData, type AdminRoutes } from './admin-route.js'

export const recordRoutes: AdminRoutes = (admin, { services }) => {
  const { store } = services
  for (const r of services.resources.all) {
    admin.post(`/${r.type}`, async (request, reply) => {
      const created = await store.create(r.type, request.body)
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
      const updated = await store.update(r.type, id, request.body)
      // Read back after commit: derived refreshes run at the end of the transaction.
      return sendAdminData(reply, request, await store.get(r.type, id) ?? updated)
    })
    admin.delete(`/${r.type}/:id`, async (request, reply) => {
      await store.remove(r.type, recordId(request.params))
      return reply.code(204).send()
    })
  }
}
