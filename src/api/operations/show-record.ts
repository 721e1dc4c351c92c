// showRecord: one record of a family by exactly one selector (plus optional narrowing
// selectors), for a caller. A record the caller may not see is answered like a missing one.
import type { Resource } from '../../resources/index.js'
import type { Caller } from '../../auth/credentials.js'
import { ApiError, notFound } from '../../contract/errors.js'
import { boundaryOwner } from '../../jobs/read-boundary.js'
import { parseFields } from '../projection.js'
import type { JsonResult, ReadContext } from './read-context.js'
import type { ListInput } from './list-records.js'
import { boundaryConditions, renderRow, visibility, visibilityConditions } from './visibility.js'

export async function showRecord(ctx: ReadContext, r: Resource, input: ListInput, caller: Caller): Promise<JsonResult> {
  const { withSensitive, allowed, denied } = visibility(r, caller)
  const selectors = (r.selectors ?? []).filter((s) => input[s.name] !== undefined)
  const names = (r.selectors ?? []).map((s) => s.name)
  if (selectors.length !== 1) {
    throw new ApiError('INVALID_REQUEST', `Give exactly one of: ${names.join(', ')}`,
      names.map((n) => ({ param: n, problem: `exactly one of ${names.join(', ')} is required` })))
  }
  const where: Record<string, string | number> = { [selectors[0].column]: input[selectors[0].name] }
  for (const f of r.selectorFilters ?? []) if (input[f.name] !== undefined) where[f.column] = input[f.name]
  const fields = input.fields !== undefined ? parseFields(input.fields, allowed, denied) : undefined
  const row = await ctx.reader.findOne(r, where, withSensitive, visibilityConditions(ctx.resources, r, caller))
  if (!row) throw notFound(`No ${r.type} record matches ${selectors[0].name}=${String(input[selectors[0].name])}`)
  // While a run of a bounded workflow is open, a record outside its boundary is refused, naming the workflow.
  const boundary = await ctx.jobs.readBoundary(caller.credentialId)
  if (boundary && !(await ctx.reader.idsMeeting(r, [row.id], boundaryConditions(ctx.resources, r, boundary))).has(row.id)) {
    throw new ApiError('FORBIDDEN', `${r.type} ${row.id} is outside the read boundary of ${boundaryOwner(boundary)}, which limits this credential's reads while its run is open`)
  }
  return { rawData: renderRow(row, fields) }
}
