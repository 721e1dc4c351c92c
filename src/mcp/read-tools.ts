// The read tools: `list_<family>` and `get_<family>` for every family the app serves (from
// the declarations and their routes, never written per family), `list_changes`, `whoami`,
// and the sync checkpoint tools. Each calls the operation its HTTP route calls.
import type { MachineRoute } from '../kernel/machine-route.js'
import { listRecords } from '../operations/list-records.js'
import { showRecord } from '../operations/show-record.js'
import { listChanges } from '../operations/list-changes.js'
import { whoami } from '../api/auth-routes.js'
import { readLag, writeCheckpoint } from '../operations/sync-state.js'
import type { Services } from '../operations/services.js'
import { routeIndex, toolFromRoute, type McpTool } from './mcp-tool.js'

/** `global-sets` → `global_sets`: tool names keep to letters, digits and `_`. */
export const toolWord = (type: string) => type.replace(/-/g, '_')

export function readTools(services: Services, routes: readonly MachineRoute[]): McpTool[] {
  const route = routeIndex(routes)
  const tools: McpTool[] = []
  for (const r of services.resources.served) {
    const list = route.find(`${r.type}.list`)
    if (list) {
      tools.push(toolFromRoute(list, {
        name: `list_${toolWord(r.type)}`, title: `List ${r.type}`,
        run: (ctx, args) => listRecords(ctx.services, r, args, ctx.caller),
      }))
    }
    const show = route.find(`${r.type}.show`)
    if (show) {
      tools.push(toolFromRoute(show, {
        name: `get_${toolWord(r.type)}`, title: `Get one of ${r.type}`,
        run: (ctx, args) => showRecord(ctx.services, r, args, ctx.caller),
      }))
    }
  }
  tools.push(
    toolFromRoute(route.get('changes.feed'), {
      name: 'list_changes', title: 'Change feed',
      description: 'Changes across resource types in commit order, each with the current record as snapshot (null for deletes); nextCursor is always given, so poll with it for new changes',
      run: (ctx, args) => listChanges(ctx.services, args, ctx.caller),
    }),
    toolFromRoute(route.get('auth.whoami'), {
      name: 'whoami', title: 'Who am I',
      run: async (ctx) => ({ data: whoami(ctx.caller) }),
    }),
    toolFromRoute(route.get('syncstate.checkpoint'), {
      name: 'sync_checkpoint', title: 'Write a sync checkpoint',
      description: 'Write the sync checkpoint of (integrationKey, resourceType): where this integration is in the change feed. Sync state only; it changes no content',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (ctx, args) => ({ data: await writeCheckpoint(ctx.services, args, ctx.caller) }),
    }),
    toolFromRoute(route.get('syncstate.lag'), {
      name: 'sync_lag', title: 'Sync lag',
      run: async (ctx, args) => ({ data: await readLag(ctx.services, args, ctx.caller) }),
    }),
  )
  return tools
}
