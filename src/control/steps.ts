// Governed actions are steps with undo, in plain async code (the Medusa shape, without a
// DSL). All steps of an execution run inside one content-store transaction, so a failure
// rolls every write back whatever the steps did; each step's undo compensates its own
// writes too (restoring the previous values through the write service), so a step stays
// correct on its own and the report says what was reversed.
import type { StoreWriter } from '../store/content-store.js'
import type { Actor } from './actor.js'
import type { PolicyLimits } from './policy.js'
import type { PreviewContext, RecordChange } from './change-preview.js'

export interface StepContext<P = Record<string, unknown>> {
  readonly w: StoreWriter
  readonly payload: P
  readonly executor: Actor
  /** The deciding policy's limits, for rules a step re-checks against the stored values. */
  readonly limits: PolicyLimits
  /** Outputs of the steps that ran before, by step name. */
  readonly outputs: Record<string, unknown>
}

export interface Step<P = Record<string, unknown>> {
  readonly name: string
  run(ctx: StepContext<P>): Promise<unknown>
  /**
   * What run would write if it ran now, without writing (an approval's page shows it): every
   * step has one, so every action's change can be shown field by field.
   */
  preview(ctx: PreviewContext<P>): Promise<readonly RecordChange[]>
  /** Reverses what run did, given its output; omitted when only the rollback can (a delete). */
  undo?(ctx: StepContext<P>, output: unknown): Promise<void>
}

export type StepStatus = 'done' | 'undone' | 'failed' | 'skipped'

export interface StepReport {
  readonly name: string
  readonly status: StepStatus
}

/** Thrown when a step fails: the original error and what happened to every step. */
/**
 * A policy limit on a stored value, checked again by a step against the value as locked in the
 * transaction, no longer holds (a concurrent execution moved it since the check before). The
 * execution is then blocked with this reason, as it is when the check before the transaction
 * finds it, so how the race ends does not depend on the database engine.
 */
export class LimitBreached extends Error {}

export class StepFailure extends Error {
  constructor(readonly error: unknown, readonly report: readonly StepReport[]) {
    super('a step of the action failed')
  }
}

/**
 * Runs steps in order. When one throws, the steps that ran are undone in reverse order and
 * a StepFailure is thrown (the surrounding transaction then rolls back).
 */
export async function runSteps<P>(steps: readonly Step<P>[], ctx: StepContext<P>, onUndoError: (err: unknown) => void): Promise<{ outputs: Record<string, unknown>; report: StepReport[] }> {
  const ran: { step: Step<P>; output: unknown }[] = []
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]
    try {
      const output = await step.run(ctx)
      ctx.outputs[step.name] = output
      ran.push({ step, output })
    } catch (err) {
      const undone = new Set<string>()
      for (const { step: done, output } of [...ran].reverse()) {
        if (!done.undo) continue
        try {
          await done.undo(ctx, output)
          undone.add(done.name)
        } catch (undoError) {
          // The transaction's rollback still reverses it; the report says it was not undone.
          onUndoError(undoError)
        }
      }
      const report: StepReport[] = steps.map((s, j) => ({
        name: s.name,
        status: j < i ? (undone.has(s.name) ? 'undone' : 'done') : j === i ? 'failed' : 'skipped',
      }))
      throw new StepFailure(err, report)
    }
  }
  return { outputs: ctx.outputs, report: steps.map((s) => ({ name: s.name, status: 'done' })) }
}
