// The shape of a governed action: a payload schema, a default risk level, how to find what
// the payload names (for boundaries and limits), the limits it checks, and its steps.
import type { TObject } from '@sinclair/typebox'
import type { StoreWriter } from '../../store/content-store.js'
import type { Doc } from '../../resources/hooks.js'
import type { PolicyLimits, RiskLevel } from '../policy.js'
import type { Step } from '../steps.js'

/** What an action touches, and where that sits for boundaries. */
export interface ActionTarget {
  readonly entity: { readonly type: string; readonly id: string } | null
  /**
   * `record`: a record of the family `type`, with the values of the columns its declared
   * `readBoundary` reads (`{ section: 'blog', id: 12 }`; null: not known yet, as a new
   * entry's id), and how a refusal names it. `none`: outside every boundary.
   */
  readonly scope:
    | { readonly kind: 'record'; readonly type: string; readonly fields: Readonly<Record<string, string | number | null>>; readonly what: string }
    | { readonly kind: 'none' }
}

export interface LimitResult {
  readonly name: string
  /** `policy`: a limit the policy sets; `action`: a rule of the action itself (stock, refundable amount). */
  readonly source: 'policy' | 'action'
  readonly max: number | null
  readonly actual: number | null
  readonly ok: boolean
  readonly problem: string | null
  /** The payload member the limit is about, for 400 details. */
  readonly param: string
}

export interface ReviewedState {
  /** What the content is, for deciders and reasons (`draft 12`). */
  readonly subject: string
  readonly content: Record<string, unknown>
}

export interface Resolved {
  readonly target: ActionTarget
  /** The record the limits are checked against. */
  readonly current: Doc | undefined
}

export interface ControlAction<P = Record<string, unknown>> {
  readonly type: string
  readonly summary: string
  readonly payload: TObject
  readonly defaultRiskLevel: RiskLevel
  /**
   * The family whose declared `readBoundary` places its targets (`entries`), or null when
   * no boundary can contain them: a bounded credential may write only policies whose
   * patterns cover actions its boundaries can contain.
   */
  readonly boundary: string | null
  /**
   * What simulating it reads (operations/simulate-action.ts): the family whose read scope it needs, and
   * the payload member naming that family's record (null: found through another record).
   */
  readonly reads: { readonly family: string; readonly idParam: string | null }
  /** Reads what the payload names as stored now; throws invalid('payload.…') when it names nothing. */
  resolve(payload: P, read: StoreWriter): Promise<Resolved>
  limits(payload: P, current: Doc | undefined, limits: PolicyLimits): LimitResult[]
  /**
   * Stored content the action applies that is not in its payload (a draft's title, slug and
   * fields), given what resolve found. An approval records it with its digest at request
   * time, and an execution with that approval is blocked when it no longer matches.
   */
  reviewedState?(payload: P, current: Doc | undefined): ReviewedState
  readonly steps: readonly Step<P>[]
  /** The execution's `result`, from the steps' outputs. */
  result(outputs: Readonly<Record<string, unknown>>): Record<string, unknown>
}

/** Types an action's payload for its own code; the registry sees it as a plain record. */
export const defineAction = <P>(action: ControlAction<P>): ControlAction => action as unknown as ControlAction

/** A limit that holds when `actual <= max`, or is not set. */
export function maxLimit(name: string, param: string, max: number | undefined, actual: number, unit = ''): LimitResult {
  if (max === undefined) return { name, source: 'policy', max: null, actual, ok: true, problem: null, param }
  const ok = actual <= max
  return { name, source: 'policy', max, actual, ok, problem: ok ? null : `${actual}${unit} exceeds the policy limit ${name} of ${max}${unit}`, param }
}
