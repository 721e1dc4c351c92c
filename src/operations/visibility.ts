// What a caller may see of a family: its sensitive fields (with the family's
// `:read_sensitive` scope), records in other statuses than the default (with the
// `otherStatusesScope`), owned records only while their owner is visible (a content block
// of an unpublished entry is as hidden as the entry), and, while a run of a workflow with a
// read boundary is open, only the records inside that boundary (DESIGN §9).
import type { Resource, ResourceRegistry } from '../resources/index.js'
import type { Condition, RecordRow } from '../store/record-query.js'
import type { ReadBoundary } from '../kernel/read-boundary.js'
import { mergeDocText } from '../store/documents.js'
import { project, type FieldTree } from '../kernel/projection.js'
import type { ReadCaller } from './read-context.js'

/** What a caller may see of a family's fields: with or without its sensitive ones. */
export interface FieldVisibility {
  readonly withSensitive: boolean
  readonly allowed: readonly string[]
  /** Sensitive fields the caller may not see, with the scope that would show them. */
  readonly denied: ReadonlyMap<string, string>
}

/** Each family's two answers, made once: every read asks. */
const visibilities = new WeakMap<Resource, readonly [without: FieldVisibility, withSensitive: FieldVisibility]>()

export function visibility(r: Resource, caller: ReadCaller): FieldVisibility {
  let both = visibilities.get(r)
  if (both === undefined) {
    both = [
      { withSensitive: false, allowed: [...r.publicKeys], denied: new Map(r.sensitiveKeys.map((k) => [k, r.sensitiveScope as string])) },
      { withSensitive: true, allowed: [...r.publicKeys, ...r.sensitiveKeys], denied: new Map() },
    ]
    visibilities.set(r, both)
  }
  return both[r.sensitiveScope !== undefined && caller.scopes.has(r.sensitiveScope) ? 1 : 0]
}

/** Whether the caller sees only the default status of `r` (entries without read_all_statuses). */
export function statusRestricted(r: Resource, caller: ReadCaller): boolean {
  return r.status?.otherStatusesScope !== undefined && r.status.default !== undefined && !caller.scopes.has(r.status.otherStatusesScope)
}

/**
 * Conditions every query of `r` by this caller carries: the default status where the caller
 * may see no other, and, for owned families, an owner the caller may see (recursively).
 */
export function visibilityConditions(resources: ResourceRegistry, r: Resource, caller: ReadCaller): Condition[] {
  const own: Condition[] = statusRestricted(r, caller) ? [{ kind: 'eq', column: 'status', value: r.status?.default as string }] : []
  return [...own, ...ownerConditions(resources, r, caller)]
}

/** The owner part of `visibilityConditions` (lists handle the family's own status themselves). */
export function ownerConditions(resources: ResourceRegistry, r: Resource, caller: ReadCaller): Condition[] {
  const owner = r.owner ? resources.byType(r.owner.type) : undefined
  if (!r.owner || !owner) return []
  const where = visibilityConditions(resources, owner, caller)
  return where.length > 0 ? [{ kind: 'ownedBy', column: r.owner.column, ownerTable: owner.table, where }] : []
}

/**
 * The records of `r` inside a read boundary, as conditions: the family's declared
 * `readBoundary` columns (axis → column: a section handle, an entry id, a product id), an
 * owned family's owner inside it, and nothing of any other family.
 */
export function boundaryConditions(resources: ResourceRegistry, r: Resource, b: ReadBoundary): Condition[] {
  const columns = r.readBoundary
  if (columns) {
    const any: Condition[] = Object.entries(columns).map(([axis, column]) => ({ kind: 'in', column, values: b.values[axis] ?? [] }))
    return [{ kind: 'anyOf', conditions: any }]
  }
  const owner = r.owner ? resources.byType(r.owner.type) : undefined
  if (r.owner && owner) return [{ kind: 'ownedBy', column: r.owner.column, ownerTable: owner.table, where: boundaryConditions(resources, owner, b) }]
  return [{ kind: 'idIn', ids: [] }]
}

export function renderRow(row: RecordRow, fields: FieldTree | undefined): string {
  return renderDoc(row.doc, row.sensitive, fields)
}

/** The stored document (and sensitive part) as sent: spliced as text, parsed only to project `fields`. */
export function renderDoc(doc: string, sensitive: string | null, fields: FieldTree | undefined): string {
  const text = mergeDocText(doc, sensitive)
  return fields ? JSON.stringify(project(JSON.parse(text), fields)) : text
}
