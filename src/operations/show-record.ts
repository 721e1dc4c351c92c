// showRecord: one record of a family by exactly one selector (plus optional narrowing
// selectors), for a caller. A record the caller may not see is answered like a missing one.
import type { Resource } from '../resources/index.js'
import type { Caller } from '../kernel/caller.js'
import { ApiError, notFound } from '../kernel/errors.js'
import { boundaryOwner } from '../kernel/read-boundary.js'
import { parseFields } from '../kernel/projection.js'
import type { ReadContext } from './read-context.js'
import type { JsonResult } from '../kernel/json-result.js'
import type { ListInput } from './list-records.js'
import { boundaryConditions, renderRow, visibility, visibilityConditions } from './visibility.js'
import type { Condition, RecordRow } from '../store/record-query.js'
import { InputProblems } from '../kernel/input-problems.js'

/**
 * `problems`: the input's problems found so far (the machine API's schema's); the checks here
 * add theirs, and one 400 names them all before anything is read.
 */
export async function showRecord(ctx: ReadContext, r: Resource, input: ListInput, caller: Caller, problems = new InputProblems()): Promise<JsonResult> {
  const { withSensitive, allowed, denied } = visibility(r, caller)
  const names = (r.selectors ?? []).map((s) => s.name)
  // A selector the schema refused was given all the same: "exactly one" is judged with it.
  const selectors = (r.selectors ?? []).filter((s) => input[s.name] !== undefined || problems.has(s.name))
  if (selectors.length !== 1) {
    for (const n of names) if (!problems.has(n)) problems.add(n, `exactly one of ${names.join(', ')} is required`)
  }
  const fields = input.fields !== undefined ? problems.attempt(() => parseFields(input.fields, allowed, denied)) : undefined
  problems.throwIfAny()
  const selector = selectors[0]
  const where: Record<string, string | number> = { [selector.column]: input[selector.name] }
  for (const f of r.selectorFilters ?? []) if (input[f.name] !== undefined) where[f.column] = input[f.name]
  const visible = visibilityConditions(ctx.resources, r, caller)
  // A selector unique only together with other columns (an entry's slug within its section)
  // may match several records when those are not given: say which, never pick one silently.
  const scopedBy = r.columns[selector.column]?.uniqueWith ?? []
  let row: RecordRow | undefined
  if (scopedBy.some((c) => where[c] === undefined)) {
    const conditions: Condition[] = [...Object.entries(where).map(([column, value]) => ({ kind: 'eq' as const, column, value })), ...visible]
    const rows = await ctx.reader.list(r, { conditions, sort: 'createdAt', desc: false, limit: AMBIGUOUS_SHOWN, withSensitive })
    if (rows.length > 1) throw ambiguous(r, `${selector.name}=${String(input[selector.name])}`, scopedBy, rows)
    row = rows[0]
  } else {
    row = await ctx.reader.findOne(r, where, withSensitive, visible)
  }
  if (!row) throw notFound(`No ${r.type} record matches ${selector.name}=${String(input[selector.name])}`)
  // While a run of a bounded workflow is open, a record outside its boundary is refused, naming the workflow.
  const boundary = await ctx.jobs.readBoundary(caller.credentialId)
  if (boundary && !(await ctx.reader.idsMeeting(r, [row.id], boundaryConditions(ctx.resources, r, boundary))).has(row.id)) {
    throw new ApiError('FORBIDDEN', `${r.type} ${row.id} is outside the read boundary of ${boundaryOwner(boundary)}, which limits this credential's reads while its run is open`)
  }
  return { rawData: renderRow(row, fields) }
}

/** Matches listed in an ambiguity error, at most. */
const AMBIGUOUS_SHOWN = 20

/** 409 naming the records a selector matched and the parameters that choose between them. */
function ambiguous(r: Resource, asked: string, scopedBy: readonly string[], rows: readonly RecordRow[]): ApiError {
  const docs = rows.map((row) => JSON.parse(row.doc) as Record<string, unknown>)
  const paramOf = (column: string) => r.selectorFilters?.find((f) => f.column === column)?.name
  const choosers = scopedBy.map((c) => ({ column: c, param: paramOf(c) }))
  const where = (d: Record<string, unknown>) => choosers.map((c) => `${c.column} ${String(d[c.column])}`).join(', ')
  const add = choosers.filter((c) => c.param !== undefined).map((c) => c.param)
  const more = rows.length >= AMBIGUOUS_SHOWN ? ' (and perhaps more)' : ''
  return new ApiError('CONFLICT',
    `${asked} matches ${rows.length} ${r.type}${more}: ${docs.map((d) => `${where(d)} (id ${String(d.id)})`).join('; ')}; ${add.length > 0 ? `add ${add.join(' and ')}, or ` : ''}use id`,
    choosers.map((c) => ({ param: c.param ?? c.column, problem: `one of: ${[...new Set(docs.map((d) => String(d[c.column])))].join(', ')}` })))
}
