// Steps that write one record through the write service and know how to undo it: an
// update keeps the previous values of what it changed, a create removes what it made.
import { invalid } from '../../kernel/errors.js'
import type { Doc } from '../../resources/hooks.js'
import type { Step, StepContext } from '../steps.js'

interface UpdateOutput {
  readonly id: number
  readonly previous: Doc
  readonly doc: Doc
}

/** Updates record `id(ctx)` of `type` with `patch(current, ctx)`; undo restores the previous values. */
export function updateStep<P>(
  name: string,
  type: string,
  id: (ctx: StepContext<P>) => number,
  patch: (current: Doc, ctx: StepContext<P>) => Doc,
): Step<P> {
  return {
    name,
    async run(ctx) {
      const recordId = id(ctx)
      const current = await ctx.w.get(type, recordId)
      if (!current) throw invalid(`payload.${idParam(type)}`, `no ${type} record with id ${recordId}`)
      const changes = patch(current, ctx)
      const previous = Object.fromEntries(Object.keys(changes).map((k) => [k, current[k]]))
      const doc = await ctx.w.update(type, recordId, changes)
      return { id: recordId, previous, doc } satisfies UpdateOutput
    },
    async undo(ctx, output) {
      const o = output as UpdateOutput
      await ctx.w.update(type, o.id, o.previous, { restore: true })
    },
  }
}

/** Creates a record of `type` from `input(ctx)`; undo removes it. */
export function createStep<P>(name: string, type: string, input: (ctx: StepContext<P>) => Doc): Step<P> {
  return {
    name,
    run: (ctx) => ctx.w.create(type, input(ctx)),
    async undo(ctx, output) {
      await ctx.w.remove(type, (output as Doc).id as number)
    },
  }
}

const idParam = (type: string) => ({ variants: 'variantId', orders: 'orderId', entries: 'entryId', 'entry-drafts': 'draftId' })[type] ?? 'id'
