// The registry of governed actions, in code: what execute, simulate and approval requests
// accept as actionType. Adding an action means writing it (payload schema, default risk,
// resolve, limits, steps with undo) and listing it here.
import type { ControlAction } from './control-action.js'
import { publishDraft, updateDraft } from './entry-actions.js'
import { adjustStock, refundOrder, setOrderStatus, setPrice } from './commerce-actions.js'

const registry: readonly ControlAction[] = [updateDraft, publishDraft, setPrice, adjustStock, setOrderStatus, refundOrder]
const byType = new Map(registry.map((a) => [a.type, a]))

export const actionTypes = (): string[] => registry.map((a) => a.type)

export const allActions = (): readonly ControlAction[] => registry

export function actionByType(type: string): ControlAction | undefined {
  return byType.get(type)
}
