// What a governed action would write, shown before it runs (an approval's page): each step
// previews its own writes from the values stored now, through the write service's previews,
// so what deciders see is computed by the code that will write it, never by a second
// description of the action that could drift from it.
import type { Doc } from '../resources/hooks.js'
import type { StoreWriter } from '../store/content-store.js'
import type { Actor } from './actor.js'
import type { PolicyLimits } from './policy.js'
import { canonicalJson } from './canonical-json.js'

export interface FieldChange {
  /** A top-level field, or a path into an object field (`fields.body`). */
  readonly field: string
  readonly before: unknown
  readonly after: unknown
}

export interface RecordChange {
  readonly type: string
  /** null: a record not created yet. */
  readonly id: number | null
  readonly kind: 'create' | 'update' | 'delete'
  /** The values that differ (none listed for a delete: the record goes as a whole). */
  readonly fields: readonly FieldChange[]
}

/** Reads, and the write service's previews: nothing that writes. */
export type PreviewReader = Pick<StoreWriter, 'get' | 'idsWhere' | 'docsWhere' | 'previewUpdate' | 'previewCreate'>

export interface PreviewContext<P = Record<string, unknown>> {
  readonly read: PreviewReader
  readonly payload: P
  /** Who would execute it (the approval's requester). */
  readonly executor: Actor
  readonly limits: PolicyLimits
  /**
   * The stored content an approval covers (a draft as approved: the action's reviewed state),
   * when it covers some: a step that applies that content previews it, not the content as it
   * is now (which, if it differs, blocks the execution anyway).
   */
  readonly reviewed: Readonly<Record<string, unknown>> | null
}

/** Set by the write service itself, never by an action. */
const BOOKKEEPING = new Set(['id', 'uid', 'createdAt', 'updatedAt'])

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The fields whose values differ between two versions of a record (`before` undefined: it is
 * created), object fields compared member by member (`fields.body`), everything else as
 * canonical JSON.
 */
export function fieldChanges(before: Doc | undefined, after: Doc, prefix = ''): FieldChange[] {
  const out: FieldChange[] = []
  for (const key of new Set([...Object.keys(before ?? {}), ...Object.keys(after)])) {
    if (prefix === '' && BOOKKEEPING.has(key)) continue
    const was = before?.[key] ?? null
    const will = after[key] ?? null
    if (isObject(was) && isObject(will)) out.push(...fieldChanges(was, will, `${prefix}${key}.`))
    else if (canonicalJson(was) !== canonicalJson(will)) out.push({ field: `${prefix}${key}`, before: was, after: will })
  }
  return out
}

/** The preview of `update(type, id, patch)`. */
export async function updatePreview(read: PreviewReader, type: string, id: number, patch: Doc): Promise<RecordChange> {
  const { previous, next } = await read.previewUpdate(type, id, patch)
  return { type, id, kind: 'update', fields: fieldChanges(previous, next) }
}

/** The preview of `create(type, input)`: each value it would store that is not empty. */
export async function createPreview(read: PreviewReader, type: string, input: Doc): Promise<RecordChange> {
  return { type, id: null, kind: 'create', fields: fieldChanges(undefined, await read.previewCreate(type, input)) }
}
