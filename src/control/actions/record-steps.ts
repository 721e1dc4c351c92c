// Steps that write one record through the write service and know how to undo it: an
// update keeps the previous values of what it changed, a create removes what it made.
import { invalid } from '../../kernel/errors.js'
import type { Doc } from '../../resources/hooks.js'
import type { Step, StepContext } from '../steps.js'
import { createPreview, updatePreview } from '../change-preview.js'

interface UpdateOutput {
  readonly id: number
  readonly previous: Doc
  readonly doc: Doc
}

/** What `id` and `patch` may use: the same whether the step runs or is previewed. */
type Inputs<P> = Pick<StepContext<P>, 'payload' | 'limits'>

/**
 * Updates record `id(ctx)` of `type` with `patch(current, ctx)`; undo restores the previous
 * values; the preview is the write service's preview of that same patch on the record now.
 */
export function updateStep<P>(
  name: string,
  type: string,
  id: (ctx: Inputs<P>) => number,
  patch: (current: Doc, ctx: Inputs<P>) => Doc,
): Step<P> {
  return {
    name,
    async preview(ctx) {
      const recordId = id(ctx)
      const current = await ctx.read.get(type, recordId)
      if (!current) throw invalid(`payload.${idParam(type)}`, `no ${type} record with id ${recordId}`)
      return [await updatePreview(ctx.read, type, recordId, patch(current, ctx))]
    },
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
export function createStep<P>(name: string, type: string, input: (ctx: Inputs<P>) => Doc): Step<P> {
  return {
    name,
    preview: async (ctx) => [await createPreview(ctx.read, type, input(ctx))],
    run: (ctx) => ctx.w.create(type, input(ctx)),
    async undo(ctx, output) {
      await ctx.w.remove(type, (output as Doc).id as number)
    },
  }
}

const idParam = (type: string) => ({ variants: 'variantId', orders: 'orderId', entries: 'entryId', 'entry-drafts': 'draftId' })[type] ?? 'id'
