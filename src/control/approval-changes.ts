// What an approval would change, for the people deciding it: for each field the action
// touches, the value stored now and the value after, read from the target record as it is
// now. The values after come from the approved content when the action applies stored content
// (a draft: its reviewed state), otherwise from the payload members that name a field of the
// record (`price`, `status`), or from the action's own `changes` (stock moved by a delta).
import type { ContentStore } from '../store/content-store.js'
import { actionByType } from './actions/action-registry.js'
import type { Approval } from './approval-store.js'

export interface FieldChange {
  readonly field: string
  readonly before: unknown
  readonly after: unknown
}

export interface ApprovalChanges {
  /** `variants 12`, or null when the payload names nothing that exists now. */
  readonly target: string | null
  readonly changes: readonly FieldChange[]
  /** Why no current values could be read (the record is gone, the payload no longer resolves). */
  readonly problem: string | null
}

export async function approvalChanges(approval: Approval, store: ContentStore): Promise<ApprovalChanges> {
  const action = actionByType(approval.actionType)
  const target = approval.target ? `${approval.target.type} ${approval.target.id}` : null
  if (!action) return { target, changes: payloadOnly(approval.payload), problem: null }
  let current: Record<string, unknown> | undefined
  try {
    current = (await action.resolve(approval.payload, store.outsideTransaction())).current as Record<string, unknown> | undefined
  } catch (err) {
    return { target, changes: payloadOnly(approval.payload), problem: err instanceof Error ? err.message : 'the payload no longer names a record' }
  }
  if (action.changes) return { target, changes: action.changes(approval.payload, current), problem: null }
  const after = approval.reviewedState?.content ?? approval.payload
  const changes = Object.entries(after)
    .filter(([field]) => !/Id$/.test(field) && (current === undefined || field in current))
    .map(([field, value]) => ({ field, before: current?.[field] ?? null, after: value }))
  return { target, changes, problem: null }
}

const payloadOnly = (payload: Record<string, unknown>): FieldChange[] =>
  Object.entries(payload).filter(([k]) => !/Id$/.test(k)).map(([field, after]) => ({ field, before: null, after }))
