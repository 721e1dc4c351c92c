// List and detail routes for every family the app serves, built from the declarations:
// thin HTTP surfaces over listRecords and showRecord.
import { Type } from '@sinclair/typebox'
import type { Services } from '../operations/services.js'
import { listRecords } from '../operations/list-records.js'
import { showRecord } from '../operations/show-record.js'
import { listQuerySchema, showQuerySchema } from '../operations/record-inputs.js'
import type { MachineRoute } from '../kernel/machine-route.js'

export function resourceRoutes(services: Services): MachineRoute[] {
  const routes: MachineRoute[] = []
  for (const r of services.resources.served) {
    const scope = r.scope as string
    const optionalScopes = [r.sensitiveScope, r.status?.otherStatusesScope].filter((s): s is string => !!s)
    routes.push({
      method: 'GET', path: `/${r.type}`, key: `${r.type}.list`, summary: `List ${r.summary.toLowerCase()}`, tag: r.type,
      scope, optionalScopes, flag: r.flag, querystring: listQuerySchema(r), data: Type.Array(r.fullItem), list: true,
      errors: ['INVALID_REQUEST'],
      // Pages that depend on the clock (lastDays) are not cached.
      cacheable: !Object.values(r.listParams ?? {}).some((p) => p.kind === 'withinDays'),
      gathersProblems: true,
      handler: ({ query, caller, problems }) => listRecords(services, r, query, caller, problems),
    })
    if (r.selectors) {
      routes.push({
        method: 'GET', path: `/${r.type}/show`, key: `${r.type}.show`, summary: `One of ${r.summary.toLowerCase()} by ${r.selectors.map((s) => s.name).join(' or ')}`,
        tag: r.type, scope, optionalScopes, flag: r.flag, querystring: showQuerySchema(r), data: r.fullItem,
        // 409 where a selector is unique only with other columns and may match several records.
        errors: ['INVALID_REQUEST', 'NOT_FOUND', ...(r.selectors.some((s) => r.columns[s.column]?.uniqueWith) ? ['CONFLICT' as const] : [])], cacheable: true,
        gathersProblems: true,
        handler: ({ query, caller, problems }) => showRecord(services, r, query, caller, problems),
      })
    }
  }
  return routes
}
