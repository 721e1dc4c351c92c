// listRecords: one page of a family for a caller, from parsed list input (see
// record-inputs.ts). One indexed keyset query; documents go out as stored JSON text.
import type { Resource } from '../resources/index.js'
import type { BooleanWhereParam, ListParamDeclaration } from '../resources/declare.js'
import { invalid, missingScope } from '../kernel/errors.js'
import { parseBoolean } from '../kernel/booleans.js'
import { type Condition, type SortKey } from '../store/record-query.js'
import { likePattern } from '../kernel/path-test.js'
import { queryDigest } from '../kernel/cursor.js'
import { parseFilter } from '../kernel/filter.js'
import { parseFields } from '../kernel/projection.js'
import type { ReadCaller, ReadContext } from './read-context.js'
import { jsonItems, type JsonResult } from '../kernel/json-result.js'
import { readersOf } from './record-inputs.js'
import { boundaryConditions, ownerConditions, renderRow, visibility } from './visibility.js'
import { namesOtherQuery, readListPosition, writeListPosition } from '../kernel/list-position.js'
import { InputProblems } from '../kernel/input-problems.js'

/** Validated list parameters (`listQuerySchema(r)`): names and types depend on the family. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ListInput = Readonly<Record<string, any>>

/**
 * `problems`: the input's problems found so far (the machine API's schema's); each check here
 * adds its own, and one 400 names them all before anything is read.
 */
export async function listRecords(ctx: ReadContext, r: Resource, input: ListInput, caller: ReadCaller, problems = new InputProblems()): Promise<JsonResult> {
  const { withSensitive, allowed, denied } = visibility(r, caller)
  const conditions: Condition[] = [...ownerConditions(ctx.resources, r, caller)]
  // While a run of a bounded workflow is open, the caller's lists hold only what lies inside.
  const known = caller.credentialId !== undefined ? ctx.jobs.knownReadBoundary(caller.credentialId) : null
  const boundary = known !== undefined ? known : await ctx.jobs.readBoundary(caller.credentialId as string)
  if (boundary) conditions.push(...boundaryConditions(ctx.resources, r, boundary))
  const digestParts: Record<string, unknown> = { type: r.type }

  if (r.status) {
    const status: string | undefined = input.status ?? r.status.default
    if (r.status.otherStatusesScope && status !== r.status.default && !caller.scopes.has(r.status.otherStatusesScope)) {
      throw missingScope(r.status.otherStatusesScope)
    }
    if (status && status !== 'all') conditions.push({ kind: 'eq', column: 'status', value: status })
    digestParts.status = status ?? 'all'
  }
  for (const [name, p] of listParamsOf(r)) {
    const v = input[name] ?? (p.kind === 'booleanColumn' && p.default !== undefined && input.status === undefined ? String(p.default) : undefined)
    if (v === undefined) continue
    digestParts[name] = v
    switch (p.kind) {
      case 'equals': conditions.push({ kind: 'eq', column: p.column, value: v }); break
      case 'search': conditions.push({ kind: 'search', columns: r.searchColumns ?? [], pattern: likePattern(v, { contains: true, wildcard: false }) }); break
      case 'arrayContains': conditions.push({ kind: 'path', test: { source: 'doc', path: [p.path], arrayAt: 1, op: 'exact', value: v } }); break
      case 'withinDays': conditions.push({ kind: 'gte', column: p.column, value: Date.now() - v * 86_400_000 }); break
      case 'booleanColumn': conditions.push({ kind: 'eq', column: p.column, value: parseBoolean(v) === true }); break
      case 'booleanWhere':
        if (parseBoolean(v)) {
          if (p.fullSyncOnly && input.updatedSince !== undefined) problems.add(name, `${name} is available in full-sync mode only (without updatedSince)`)
          else conditions.push(...booleanWhere(r, p, input))
        }
        break
      case 'integer': {
        // Read only by a true boolean parameter; given without one it would be silently ignored.
        // (A reader refused itself is named already: nothing to say of this one.)
        const readers = readersOf(r, name)
        if (readers.length > 0 && !readers.some((b) => problems.has(b) || (input[b] !== undefined && parseBoolean(input[b]) === true))) problems.add(name, `needs ${readers.map((b) => `${b}=true`).join(' or ')}`)
        break
      }
    }
  }
  if (input.filter !== undefined) {
    const tests = problems.attempt(() => parseFilter(input.filter, { schema: r.fullItem, sensitiveKeys: r.sensitiveKeys, sensitiveAllowed: withSensitive, sensitiveScope: r.sensitiveScope }))
    for (const test of tests ?? []) conditions.push({ kind: 'path', test })
    digestParts.filter = input.filter
  }
  const sortText: string = input.sort ?? 'updatedAt'
  const desc = sortText.startsWith('-')
  const sort: SortKey = desc ? sortText.slice(1) : sortText
  digestParts.sort = sortText
  const fields = input.fields !== undefined ? problems.attempt(() => parseFields(input.fields, allowed, denied)) : undefined

  const digest = queryDigest(digestParts)
  let after: { key: string | number; id: number } | undefined
  let updatedSince: number | undefined = input.updatedSince !== undefined ? Date.parse(input.updatedSince) : undefined
  const text = input.cursor !== undefined ? problems.attempt(() => ctx.cursors.decodeText(input.cursor)) : undefined
  // Whether a cursor belongs to this query can be told only of a query without problems.
  problems.throwIfAny()
  if (text !== undefined) {
    const c = readListPosition(text)
    if (c === undefined ? namesOtherQuery(text, digest) : c.q !== digest) throw invalid('cursor', 'cursor belongs to a different query; repeat the parameters of the first page')
    if (c === undefined) throw invalid('cursor', 'malformed cursor')
    after = { key: c.k, id: c.i }
    // The cursor wins over updatedSince: it carries the lower bound of the first page.
    updatedSince = c.u
  }
  if (updatedSince !== undefined) conditions.push({ kind: 'gte', column: 'updatedAt', value: updatedSince })

  const limit: number = input.limit ?? 50
  const rows = await ctx.reader.list(r, { conditions, sort, desc, after, limit: limit + 1, withSensitive })
  const hasMore = rows.length > limit
  const page = hasMore ? rows.slice(0, limit) : rows
  const last = page[page.length - 1]
  const nextCursor = hasMore && last
    ? ctx.cursors.encodeText(writeListPosition({ k: last.sortKey, i: last.id, q: digest, u: updatedSince }))
    : null
  return jsonItems(page.map((row) => renderRow(row, fields)), {
    pagination: { hasMore, nextCursor },
    meta: { mode: updatedSince !== undefined ? 'incremental' : 'full' },
  })
}

const listParams = new WeakMap<Resource, ReadonlyArray<readonly [string, ListParamDeclaration]>>()

/** A family's list parameters as entries, made once (every page walks them). */
function listParamsOf(r: Resource): ReadonlyArray<readonly [string, ListParamDeclaration]> {
  let entries = listParams.get(r)
  if (entries === undefined) {
    entries = Object.entries(r.listParams ?? {})
    listParams.set(r, entries)
  }
  return entries
}

/** The column conditions of a true boolean parameter (`lowStock=true`). */
function booleanWhere(r: Resource, p: BooleanWhereParam, input: ListInput): Condition[] {
  return p.where.map((w) => {
    const declared = w.param !== undefined ? r.listParams?.[w.param] : undefined
    const value = w.param !== undefined ? (input[w.param] ?? (declared?.kind === 'integer' ? declared.default : undefined)) : w.value
    return w.op === '<=' ? { kind: 'lte', column: w.column, value: Number(value) } : { kind: 'eq', column: w.column, value: value as string | number | boolean }
  })
}
