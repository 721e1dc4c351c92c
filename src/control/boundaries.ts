// Boundaries: a credential may be limited to lists of the registry's boundary axes (entries
// of some sections, some entry ids, some product ids by default). A bounded credential may
// request or execute only actions whose target lies inside one of them, by its family's
// declared `readBoundary` (a variant's target is its product); anything else (orders
// included, which no boundary names) is outside. An unbounded credential is not limited.
import type { Boundaries } from '../kernel/caller.js'
import type { ResourceRegistry } from '../resources/index.js'
import type { ActionTarget } from './actions/control-action.js'
import { allActions } from './actions/action-registry.js'
import { patternRegex } from './policy.js'

export interface BoundaryCheck {
  readonly bounded: boolean
  readonly allowed: boolean
  readonly problem: string | null
}

export function checkBoundaries(resources: ResourceRegistry, boundaries: Boundaries | null, target: ActionTarget): BoundaryCheck {
  if (boundaries === null) return { bounded: false, allowed: true, problem: null }
  const scope = target.scope
  if (scope.kind === 'none') {
    const what = target.entity ? `${target.entity.type} ${target.entity.id}` : 'this target'
    return { bounded: true, allowed: false, problem: `${what} is outside the credential's boundaries` }
  }
  // Inside when any axis its family declares lists the value of that axis's column.
  const allowed = Object.entries(resources.byType(scope.type)?.readBoundary ?? {}).some(([axis, column]) => {
    const value = scope.fields[column]
    return value !== null && value !== undefined && (boundaries[axis] ?? []).includes(value)
  })
  return { bounded: true, allowed, problem: allowed ? null : `${scope.what} is outside the credential's boundaries` }
}

/**
 * Actions a policy pattern covers that a bounded credential's boundaries cannot contain. A
 * policy applies to every target of the actions it covers, so a bounded credential may write
 * only patterns whose actions all target what its boundaries name (entries for sections or
 * entry ids, variants for product ids); orders lie outside every boundary.
 */
export function actionsOutsideBoundaries(resources: ResourceRegistry, boundaries: Boundaries | null, pattern: string): string[] {
  if (boundaries === null) return []
  const re = patternRegex(pattern)
  const holds = (type: string | null) =>
    type !== null && Object.keys(resources.byType(type)?.readBoundary ?? {}).some((axis) => (boundaries[axis]?.length ?? 0) > 0)
  return allActions().filter((a) => re.test(a.type) && !holds(a.boundary)).map((a) => a.type)
}
