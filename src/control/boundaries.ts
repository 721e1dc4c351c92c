// Boundaries: a credential may be limited to entries of some sections, some entry ids, and
// some product ids (a variant counts as its product). A bounded credential may request or
// execute only actions whose target lies inside one of them; anything else (orders
// included, which no boundary names) is outside. An unbounded credential is not limited.
import type { Boundaries } from '../kernel/caller.js'
import type { ActionTarget } from './actions/control-action.js'
import { allActions } from './actions/action-registry.js'
import { patternRegex } from './policy.js'

export interface BoundaryCheck {
  readonly bounded: boolean
  readonly allowed: boolean
  readonly problem: string | null
}

export function checkBoundaries(boundaries: Boundaries | null, target: ActionTarget): BoundaryCheck {
  if (boundaries === null) return { bounded: false, allowed: true, problem: null }
  const scope = target.scope
  let allowed = false
  let what: string
  switch (scope.kind) {
    case 'entry':
      allowed = (boundaries.sections ?? []).includes(scope.section)
        || (scope.entryId !== null && (boundaries.entryIds ?? []).includes(scope.entryId))
      what = scope.entryId !== null ? `entry ${scope.entryId} in section ${scope.section}` : `a new entry in section ${scope.section}`
      break
    case 'product':
      allowed = (boundaries.productIds ?? []).includes(scope.productId)
      what = `product ${scope.productId}`
      break
    case 'none':
      what = target.entity ? `${target.entity.type} ${target.entity.id}` : 'this target'
      break
  }
  return { bounded: true, allowed, problem: allowed ? null : `${what} is outside the credential's boundaries` }
}

/**
 * Actions a policy pattern covers that a bounded credential's boundaries cannot contain. A
 * policy applies to every target of the actions it covers, so a bounded credential may write
 * only patterns whose actions all target what its boundaries name (entries for sections or
 * entry ids, variants for product ids); orders lie outside every boundary.
 */
export function actionsOutsideBoundaries(boundaries: Boundaries | null, pattern: string): string[] {
  if (boundaries === null) return []
  const re = patternRegex(pattern)
  const holds = (kind: ActionTarget['scope']['kind']) =>
    kind === 'entry' ? (boundaries.sections?.length ?? 0) + (boundaries.entryIds?.length ?? 0) > 0
      : kind === 'product' ? (boundaries.productIds?.length ?? 0) > 0 : false
  return allActions().filter((a) => re.test(a.type) && !holds(a.boundary)).map((a) => a.type)
}
