// Boundaries: a credential may be limited to entries of some sections, some entry ids, and
// some product ids (a variant counts as its product). A bounded credential may request or
// execute only actions whose target lies inside one of them; anything else (orders
// included, which no boundary names) is outside. An unbounded credential is not limited.
import type { Boundaries } from '../auth/credentials.js'
import type { ActionTarget } from './actions/control-action.js'

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
